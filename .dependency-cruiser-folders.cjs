/**
 * The second pass of `npm run lint:deps`: the code (tests left out, as they may wire anything)
 * collapsed to its folders, at every depth, with no circle between them. Two folders that need
 * each other are one wing, or need a third below both. The module rules are in
 * .dependency-cruiser.cjs.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS config, as dependency-cruiser reads it
const { options } = require('./.dependency-cruiser.cjs');

module.exports = {
  forbidden: [
    {
      name: 'no-folder-circle',
      severity: 'error',
      comment: 'A circle between folders: move what both need into a folder below them.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    ...options,
    exclude: { path: `${options.exclude.path}|\\.test\\.tsx?$|^tests/` },
  },
};

// Tailwind CSS v4 runs as a PostCSS plugin in Next's CSS pipeline: app/globals.css is its entry.
const config = { plugins: { '@tailwindcss/postcss': {} } };
export default config;

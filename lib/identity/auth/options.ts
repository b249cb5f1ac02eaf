import type { AuthOptions } from 'next-auth';
import GitHubProvider from 'next-auth/providers/github';
import GoogleProvider from 'next-auth/providers/google';
import { env } from '../../platform/env';
import { log } from '../../platform/log';
import { requireOAuthSecrets } from '../secrets';
import type { AuthServices as Services } from './services';
import { userForIdentity } from './users';

/**
 * next-auth (v4, JWT sessions) for the publisher's sign-in (ARCHITECTURE.md, Tokens and sign-in):
 * GitHub and Google when their client id and secret are configured, the session endpoint and
 * sign-out. Email and password is our own form (lib/identity/auth/signin.ts), writing the same cookie.
 * The session cookie only says who is signed in here; access tokens for third parties come
 * from /oauth/token, never from this session.
 */

export const SESSION_MAX_AGE_S = 8 * 3600;

export function configuredProviders(): ('github' | 'google')[] {
  const e = env();
  const list: ('github' | 'google')[] = [];
  if (e.GITHUB_CLIENT_ID && e.GITHUB_CLIENT_SECRET) list.push('github');
  if (e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET) list.push('google');
  return list;
}

export function usesSecureCookies(): boolean {
  return env().PUBLIC_BASE_URL.startsWith('https://');
}

/** The name of the session cookie (next-auth prefixes it with __Secure- on https). */
export function sessionCookieName(): string {
  return `${usesSecureCookies() ? '__Secure-' : ''}next-auth.session-token`;
}

/** Built once per set of services: every /api/auth request asks for them. */
const built = new WeakMap<Services, AuthOptions>();

export async function authOptions(services: Services): Promise<AuthOptions> {
  const secrets = await requireOAuthSecrets(services);
  let options = built.get(services);
  if (!options) built.set(services, (options = buildOptions(services, secrets.sessionSecret)));
  return options;
}

function buildOptions(services: Services, sessionSecret: string): AuthOptions {
  const e = env();
  // next-auth reads its own origin from NEXTAUTH_URL; ours is PUBLIC_BASE_URL (lib/platform/env.ts).
  process.env.NEXTAUTH_URL ??= e.PUBLIC_BASE_URL;

  // Email and password sign-in is our own server action (lib/identity/auth/signin.ts), which writes the
  // same session cookie; next-auth keeps the external providers, the session and sign-out.
  const providers: AuthOptions['providers'] = [];
  if (e.GITHUB_CLIENT_ID && e.GITHUB_CLIENT_SECRET) {
    providers.push(GitHubProvider({ clientId: e.GITHUB_CLIENT_ID, clientSecret: e.GITHUB_CLIENT_SECRET }));
  }
  if (e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET) {
    providers.push(GoogleProvider({ clientId: e.GOOGLE_CLIENT_ID, clientSecret: e.GOOGLE_CLIENT_SECRET }));
  }

  return {
    secret: sessionSecret,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
    useSecureCookies: usesSecureCookies(),
    pages: { signIn: '/signin', error: '/signin' },
    providers,
    logger: {
      error: (code, metadata) => log.error('next-auth error', { code, detail: metadata instanceof Error ? metadata.message : undefined }),
      warn: (code) => log.warn('next-auth warning', { code }),
      debug: () => {},
    },
    callbacks: {
      async signIn({ user, account }) {
        if (!account || account.provider === 'credentials') return true;
        const provider = account.provider === 'github' ? 'github' : account.provider === 'google' ? 'google' : null;
        if (!provider) return false;
        const result = await userForIdentity(
          { provider, providerUserId: account.providerAccountId, email: user.email ?? null, name: user.name ?? null },
          await services.database(),
        );
        if (!result.ok) return '/signin?error=IdentityRefused';
        // From here on the session names our user, not the provider's account.
        user.id = result.user.id;
        return true;
      },
      async jwt({ token, user }) {
        if (user) token.sub = user.id;
        return token;
      },
      redirect: ({ url, baseUrl }) => safeRedirect(url, baseUrl),
    },
  };
}

/**
 * Where next-auth sends the browser after sign-in or sign-out (its `callbackUrl`): next-auth's own
 * rule, a path or a URL of this origin, else home; except that a value that is no URL also goes
 * home, where next-auth's rule threw (a form's `callbackUrl` of `http://localhost:3000]` made
 * POST /api/auth/signout a 500). Parameters and cookies that are no URL are refused before
 * next-auth sees them (lib/routes/auth.ts).
 */
export function safeRedirect(url: string, baseUrl: string): string {
  if (url.startsWith('/')) return `${baseUrl}${url}`;
  return URL.canParse(url) && new URL(url).origin === baseUrl ? url : baseUrl;
}

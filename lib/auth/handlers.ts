import NextAuth from 'next-auth';
import type { NextRequest } from 'next/server';
import { defineRoute, type Context } from '../http/kernel';
import { ROUTES } from '../registry';
import { authOptions } from './options';

/**
 * /api/auth/*: next-auth's own endpoints (sign-in callbacks, CSRF token, session, sign-out),
 * behind the kernel like every route. Options are built per request because the session
 * secret may come from the database (development).
 */
async function nextAuth({ request, params, services }: Pick<Context<{ credential: { kind: 'none' } }>, 'request' | 'params' | 'services'>): Promise<Response> {
  return (await NextAuth(request as NextRequest, { params: Promise.resolve(params as { nextauth: string[] }) }, await authOptions(services))) as Response;
}

export const nextAuthRoute = defineRoute(ROUTES['/api/auth/[...nextauth]'], { GET: nextAuth, POST: nextAuth });

import NextAuth from 'next-auth';
import type { NextRequest } from 'next/server';
import { method, type RouteSpec } from '../http/kernel';
import { authOptions } from './options';

/**
 * /api/auth/*: next-auth's own endpoints (sign-in callbacks, CSRF token, session, sign-out),
 * behind the kernel like every route. Options are built per request because the session
 * secret may come from the database (development).
 */
const handler = method({
  handler: async ({ request, params }) =>
    (await NextAuth(request as NextRequest, { params: Promise.resolve(params as { nextauth: string[] }) }, await authOptions())) as Response,
});

export const nextAuthRoute: RouteSpec = {
  name: 'next-auth',
  errors: 'oauth',
  methods: { GET: handler, POST: handler },
};

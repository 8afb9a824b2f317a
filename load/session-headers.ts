/**
 * The run's one session on every load request: its cookie, and the XSRF echo bmcweb wants on
 * writes. Built once per kind of request: a load run keeps its session and must not spend its
 * time in the cookie jar.
 */
import type { BmcClient } from '../client/http.js';
import type { HttpRequest } from './request-source.js';

export function sessionHeaders(client: BmcClient, ns: string): (req: HttpRequest) => Record<string, string> {
  const cookie = client.cookieHeader(`/xyz/${ns}/`);
  const xsrf = client.xsrfToken();
  const read: Record<string, string> = { accept: 'application/json', ...(cookie && { cookie }) };
  const write: Record<string, string> = { ...read, 'content-type': 'application/json', ...(xsrf && { 'x-xsrf-token': xsrf }) };
  return (req) => (req.method === 'GET' ? read : write);
}

/**
 * Gives every request an id: the client's `X-Request-Id` when it is a sane token, else a new
 * one. The id is echoed in the `X-Request-Id` response header and in every body. Then refuses a
 * URL that carries a NUL (`%00`): no id, name or query value holds one, and Postgres cannot
 * compare text with it, so both stores answer the same 400 before any route runs.
 */
import { Elysia } from 'elysia'
import { badRequest } from '../../errors.ts'
import type { Ids } from '../../ports/ids.ts'
import { setState } from '../request-state.ts'

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/

export function requestIdPlugin(ids: Ids) {
  return new Elysia({ name: 'request-id' }).onRequest(({ request, set }) => {
    const sent = request.headers.get('x-request-id')
    const id = sent && SANE_ID.test(sent) ? sent : ids.next('req')
    setState(request, { id, startedAt: performance.now() })
    set.headers['x-request-id'] = id
    if (request.url.includes('%00'))
      throw badRequest('the path and query must not contain NUL (%00)', [{ path: '/url', message: 'contains %00' }])
  })
}

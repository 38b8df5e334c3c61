/**
 * Gives every request an id: the client's `X-Request-Id` when it is a sane token, else a new
 * one. The id is echoed in the `X-Request-Id` response header and in every body.
 */
import { Elysia } from 'elysia'
import type { Ids } from '../../ports/ids.ts'
import { setState } from '../request-state.ts'

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/

export function requestIdPlugin(ids: Ids) {
  return new Elysia({ name: 'request-id' }).onRequest(({ request, set }) => {
    const sent = request.headers.get('x-request-id')
    const id = sent && SANE_ID.test(sent) ? sent : ids.next('req')
    setState(request, { id, startedAt: performance.now() })
    set.headers['x-request-id'] = id
  })
}

/**
 * Route documentation. Handlers declare `detail: doc({...})`; the OpenAPI generator reads it
 * back from the app's routes. Response schemas live here (not in Elysia's `response` hook),
 * so documenting a response never costs a runtime check.
 */
import type { TSchema } from '@sinclair/typebox'
import type { Permission } from '../domain/permissions.ts'

export interface RouteDoc {
  summary: string
  description?: string
  tags: string[]
  /** What the operation needs: one permission, every one of a list, or any caller of an organization. */
  permission?: Permission | readonly Permission[] | 'authenticated'
  /** The `data` of the envelope, or the whole body when `raw` is set. */
  response?: TSchema
  raw?: boolean
  /** Content type of a non-JSON response (server-sent events, HTML). */
  produces?: string
  /** Error statuses worth listing besides 400/401/403. */
  errors?: number[]
  hide?: boolean
}

export function doc(route: RouteDoc): RouteDoc & { 'x-automaton': true } {
  return { ...route, 'x-automaton': true }
}

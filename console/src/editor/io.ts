/**
 * The editor's requests: the draft read with its version (the `ETag`) and saved on the condition
 * that nobody saved meanwhile (`If-Match`; a 412 answers a conflict), the catalog, validation.
 */
import { api, ApiError, organization, session } from '../api.ts'
import type { Doc } from './model.ts'

export interface Loaded {
  workflow: Record<string, any>
  etag: string | null
}

function headers(method: string, extra: Record<string, string>): Record<string, string> {
  const h = { ...extra }
  if (method !== 'GET' && session.value) h['x-csrf-token'] = session.value.csrfToken
  if (organization.value) h['x-org-id'] = organization.value
  return h
}

async function call(method: string, path: string, body?: unknown, extra: Record<string, string> = {}) {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: headers(method, body === undefined ? extra : { ...extra, 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const parsed = await response.json().catch(() => null)
  if (!response.ok)
    throw new ApiError(response.status, parsed?.message ?? `${response.status} ${response.statusText}`, parsed?.details)
  return { data: parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed, response }
}

/** The draft's version as the server names it: its ETag, else the version number quoted. */
const versionOf = (response: Response, workflow: Record<string, any>) =>
  response.headers.get('etag') ?? (workflow?.version === undefined ? null : `"${workflow.version}"`)

export async function loadWorkflow(id: string): Promise<Loaded> {
  const { data, response } = await call('GET', `/v1/workflows/${id}`)
  return { workflow: data, etag: versionOf(response, data) }
}

/** Saves the draft; a 412 (someone saved since `etag`) is thrown as an ApiError with that status. */
export async function saveDraft(id: string, doc: Doc, etag: string | null): Promise<Loaded> {
  const { data, response } = await call(
    'PUT',
    `/v1/workflows/${id}`,
    { definition: doc.definition, uiMetadata: doc.uiMetadata },
    etag ? { 'if-match': etag } : {},
  )
  return { workflow: data, etag: versionOf(response, data) }
}

/** Saves the pinned trigger samples alone (`pinnedData`), on the same condition as the draft. */
export async function savePinned(
  id: string,
  pinnedData: Record<string, unknown>,
  etag: string | null,
): Promise<Loaded> {
  const { data, response } = await call('PUT', `/v1/workflows/${id}`, { pinnedData }, etag ? { 'if-match': etag } : {})
  return { workflow: data, etag: versionOf(response, data) }
}

export const createCopy = (name: string, doc: Doc) =>
  api<{ id: string }>('POST', '/v1/workflows', {
    name: `${name} (copy)`,
    definition: doc.definition,
    uiMetadata: doc.uiMetadata,
  })

export const publish = (id: string) => api('POST', `/v1/workflows/${id}/publish`)

export type Entry = Record<string, any> & { type: string; name: string; trigger: boolean }

export async function loadCatalog(): Promise<Entry[]> {
  const [triggers, actions] = await Promise.all([api<any[]>('GET', '/v1/triggers'), api<any[]>('GET', '/v1/actions')])
  return [...triggers.map((e) => ({ ...e, trigger: true })), ...actions.map((e) => ({ ...e, trigger: false }))]
}

export interface Problem {
  pointer: string
  message: string
}

/** The validation problems of a definition by node id (pointers into the node), and those of no node. */
export async function validate(doc: Doc): Promise<{ byNode: Record<string, Problem[]>; other: Problem[] }> {
  const report = await api<any>('POST', '/v1/workflows/validate', { definition: doc.definition })
  const byNode: Record<string, Problem[]> = {}
  const other: Problem[] = []
  for (const item of [...(report?.errors ?? []), ...(report?.warnings ?? [])]) {
    const match = /^\/nodes\/([^/]+)(\/.*)?$/.exec(item.path ?? '')
    if (match) (byNode[match[1]] ??= []).push({ pointer: match[2] ?? '', message: item.message })
    else other.push({ pointer: item.path ?? '', message: item.message })
  }
  return { byNode, other }
}

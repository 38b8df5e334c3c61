/**
 * The version check of a workflow's draft: `GET /v1/workflows/{id}` answers an entity tag naming
 * the version shown and a digest of its content (a draft is edited in place, so its number alone
 * would not change), and a write that carries the tag it read (`If-Match`) is refused with 412
 * once the draft changed since. Every writer (the API, the editor, the builder chat, agents) goes
 * through the same check; a write without a tag stays unconditional.
 */
import { CONTENT_KEYS, type Workflow } from '../domain/workflow.ts'
import { AppError } from '../errors.ts'
import { canonicalJson } from '../json.ts'
import { sha256Hex } from '../security/hash.ts'

/** The entity tag of a workflow as shown: `"<version>.<digest of its content>"`, quoted. */
export async function workflowEtag(w: Workflow): Promise<string> {
  const content = Object.fromEntries(CONTENT_KEYS.map((k) => [k, w[k]]))
  const digest = (await sha256Hex(canonicalJson(content))).slice(0, 16)
  return `"${w.version}.${digest}"`
}

/** Whether an `If-Match` value (a list of tags, `*`, weak tags compared by their value) names `etag`. */
export function ifMatchHolds(ifMatch: string, etag: string): boolean {
  return ifMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag)
}

/** 412: the draft changed since the writer read it; the details name the current version and tag. */
export function versionConflict(current: Workflow, etag: string): AppError {
  return new AppError(412, 'the workflow changed since you read it; read it again and reapply your change', [
    {
      path: '/headers/If-Match',
      message: `the current version is ${current.version} (ETag ${etag})`,
      currentVersion: current.version,
      etag,
    },
  ])
}

/** Refuses a write whose `If-Match` no longer names the workflow as shown; none: unconditional. */
export async function checkIfMatch(current: Workflow, ifMatch: string | null | undefined): Promise<void> {
  if (ifMatch === null || ifMatch === undefined || ifMatch.trim() === '') return
  const etag = await workflowEtag(current)
  if (!ifMatchHolds(ifMatch, etag)) throw versionConflict(current, etag)
}

/**
 * Shape checks of plugin definitions, so that a malformed plugin is refused when it is loaded,
 * with the plugin and the problem named, instead of failing later inside a run. Each function
 * throws a PluginError for the first problem it finds; cross-plugin checks (duplicates, unknown
 * connector types) are the registry's.
 */
import { Kind, type TSchema } from '@sinclair/typebox'
import type { AnyAction, AnyAgent, AnyConnector, AnyTrigger, AnyWebhook } from './definitions.ts'
import { isPermission } from '../domain/permissions.ts'
import { optionFieldSchema } from './option-fields.ts'
import { MARKER } from './schemas.ts'

export class PluginError extends Error {
  override name = 'PluginError'
  constructor(
    readonly pluginId: string,
    readonly problem: string,
  ) {
    super(`plugin "${pluginId}": ${problem}`)
  }
}

export const TYPE_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/
export const PLUGIN_ID = /^[a-z][a-z0-9-]{0,62}$/
const WEBHOOK_PATH = /^\/v1(\/(:[A-Za-z][A-Za-z0-9]*|[A-Za-z0-9._~-]+))+$/
const SETTING = /^[A-Z][A-Z0-9_]*$/
const AUTH_KINDS = ['connector', 'organization', 'setting', 'subscription', 'none']

export const isSchema = (s: unknown): s is TSchema => !!s && typeof s === 'object' && Kind in (s as object)
const isObjectSchema = (s: unknown): s is TSchema => isSchema(s) && s.type === 'object'
const isStringList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string')

type Def = Record<string, unknown>

function common(pluginId: string, kind: string, def: Def, key = 'type') {
  const fail = (problem: string) => new PluginError(pluginId, problem)
  if (!def || typeof def !== 'object')
    throw fail(
      `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} must be an object made with define${kind[0].toUpperCase()}${kind.slice(1)}()`,
    )
  const id = def[key]
  if (typeof id !== 'string' || !TYPE_NAME.test(id))
    throw fail(`${kind} ${key} ${JSON.stringify(id)} must be lower-case words joined by dashes`)
  if (typeof def.name !== 'string' || !def.name) throw fail(`${kind} "${id}" needs a name`)
  if (typeof def.description !== 'string') throw fail(`${kind} "${id}" needs a description`)
  if (def.tags !== undefined && !isStringList(def.tags)) throw fail(`${kind} "${id}": tags must be a list of strings`)
  for (const field of ['documentationUrl', 'logoUrl']) {
    if (def[field] !== undefined && typeof def[field] !== 'string')
      throw fail(`${kind} "${id}": ${field} must be a string`)
  }
  return id
}

function payloadOf(pluginId: string, kind: string, id: string, def: Def) {
  if (!isObjectSchema(def.payload))
    throw new PluginError(pluginId, `${kind} "${id}" needs a TypeBox object schema as payload`)
  if (!isSchema(def.result)) throw new PluginError(pluginId, `${kind} "${id}" needs a TypeBox result schema`)
}

/** A definition's version: its `version`, or 1 when it declares none. */
export const versionOf = (def: { readonly version?: number }): number => def.version ?? 1

/** `version` is a whole number from 1; `migrate`, when given, a function. */
function versionField(pluginId: string, kind: string, id: string, def: Def) {
  const version = def.version
  if (version !== undefined && !(Number.isSafeInteger(version) && (version as number) >= 1))
    throw new PluginError(pluginId, `${kind} "${id}": version must be a whole number from 1`)
  if (def.migrate !== undefined && typeof def.migrate !== 'function')
    throw new PluginError(pluginId, `${kind} "${id}": migrate must be a function of the previous version's payload`)
}

/**
 * The versions one plugin ships of a type: consecutive, and each but the first it ships has a
 * `migrate` from the one before (a plugin may drop its oldest versions, never one in between).
 */
export function checkVersions(
  pluginId: string,
  kind: string,
  type: string,
  versions: ReadonlyMap<number, { readonly migrate?: unknown }>,
): void {
  const numbers = [...versions.keys()].sort((a, b) => a - b)
  numbers.forEach((version, i) => {
    if (i === 0) return
    if (version !== numbers[i - 1] + 1)
      throw new PluginError(
        pluginId,
        `${kind} "${type}": versions must be consecutive (${numbers[i - 1]} is followed by ${version})`,
      )
    if (!versions.get(version)!.migrate)
      throw new PluginError(
        pluginId,
        `${kind} "${type}" version ${version} needs migrate(payload), turning a version ${version - 1} payload into its own`,
      )
  })
}

/** Checks a connector requirement's shape; returns its type (or null when there is none). */
function requirement(pluginId: string, where: string, value: unknown): string | null {
  if (value === undefined || value === null) return null
  const r = value as Def
  if (typeof r !== 'object' || typeof r.type !== 'string' || !TYPE_NAME.test(r.type)) {
    throw new PluginError(
      pluginId,
      `${where}: connector must be null or { type, accountType?, walletSupport? } (or a connector definition)`,
    )
  }
  if (r.accountType !== undefined && typeof r.accountType !== 'string')
    throw new PluginError(pluginId, `${where}: connector accountType must be a string`)
  if (r.walletSupport !== undefined && !isStringList(r.walletSupport))
    throw new PluginError(pluginId, `${where}: connector walletSupport must be a list of strings`)
  return r.type
}

export function checkAction(pluginId: string, action: AnyAction): string | null {
  const def = action as unknown as Def
  const id = common(pluginId, 'action', def)
  payloadOf(pluginId, 'action', id, def)
  versionField(pluginId, 'action', id, def)
  if (typeof def.run !== 'function') throw new PluginError(pluginId, `action "${id}" needs a run(ctx) function`)
  checkOptions(pluginId, `action "${id}"`, def)
  for (const fn of ['resume', 'timeout']) {
    if (def[fn] !== undefined && typeof def[fn] !== 'function')
      throw new PluginError(pluginId, `action "${id}": ${fn} must be a function`)
  }
  if (def.branches !== undefined && (!isStringList(def.branches) || (def.branches as string[]).length === 0)) {
    throw new PluginError(pluginId, `action "${id}": branches must be a non-empty list of names`)
  }
  const properties = ((def.payload as TSchema).properties ?? {}) as Record<string, unknown>
  if (def.raw !== undefined && (!isStringList(def.raw) || (def.raw as string[]).some((f) => !(f in properties)))) {
    throw new PluginError(pluginId, `action "${id}": raw must list fields of the payload schema`)
  }
  return requirement(pluginId, `action "${id}"`, def.connector)
}

export function checkAgent(pluginId: string, agent: AnyAgent): void {
  const def = agent as unknown as Def
  if (!def || typeof def !== 'object')
    throw new PluginError(pluginId, 'an agent must be an object made with defineAgent()')
  const id = typeof def.type === 'string' ? def.type : '(no type)'
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(id))
    throw new PluginError(
      pluginId,
      `agent "${id}": type must be lower-case letters, digits and dashes, starting with a letter`,
    )
  for (const field of ['name', 'description', 'system']) {
    if (typeof def[field] !== 'string' || !(def[field] as string).trim())
      throw new PluginError(pluginId, `agent "${id}": ${field} must be a non-empty string`)
  }
  if (!isStringList(def.tools)) throw new PluginError(pluginId, `agent "${id}": tools must be a list of action types`)
  if (!isStringList(def.permissions) || (def.permissions as string[]).some((p) => !isPermission(p))) {
    throw new PluginError(
      pluginId,
      `agent "${id}": permissions must be a list of permissions (${(def.permissions as unknown[] | undefined)?.filter((p) => typeof p !== 'string' || !isPermission(p)).join(', ') ?? 'not a list'})`,
    )
  }
  if (
    def.maxSteps !== undefined &&
    (!Number.isInteger(def.maxSteps) || (def.maxSteps as number) < 1 || (def.maxSteps as number) > 20)
  ) {
    throw new PluginError(pluginId, `agent "${id}": maxSteps must be an integer from 1 to 20`)
  }
  if (def.input !== undefined && !isObjectSchema(def.input))
    throw new PluginError(pluginId, `agent "${id}": input must be a TypeBox object schema`)
}

export function checkTrigger(pluginId: string, trigger: AnyTrigger): string | null {
  const def = trigger as unknown as Def
  const id = common(pluginId, 'trigger', def)
  payloadOf(pluginId, 'trigger', id, def)
  versionField(pluginId, 'trigger', id, def)
  if (def.waitPayload !== undefined && !isObjectSchema(def.waitPayload))
    throw new PluginError(pluginId, `trigger "${id}": waitPayload must be a TypeBox object schema`)
  if (def.platform !== undefined && typeof def.platform !== 'string')
    throw new PluginError(pluginId, `trigger "${id}": platform must be a string`)
  for (const fn of ['matches', 'matchesWait', 'onEnable', 'onDisable']) {
    if (def[fn] !== undefined && typeof def[fn] !== 'function')
      throw new PluginError(pluginId, `trigger "${id}": ${fn} must be a function`)
  }
  checkPoll(pluginId, id, def)
  if (def.poll !== undefined && def.schedule !== undefined)
    throw new PluginError(pluginId, `trigger "${id}": a trigger either polls or follows a schedule, not both`)
  if (def.webhook !== undefined && typeof def.webhook !== 'string')
    throw new PluginError(pluginId, `trigger "${id}": webhook must name one of the plugin's webhooks`)
  checkOptions(pluginId, `trigger "${id}"`, def)
  return requirement(pluginId, `trigger "${id}"`, def.connector)
}

function checkPoll(pluginId: string, id: string, def: Def) {
  if (def.poll === undefined) return
  const poll = def.poll as Def
  const fail = (problem: string) => new PluginError(pluginId, `trigger "${id}": ${problem}`)
  if (!poll || typeof poll !== 'object') throw fail('poll must be an object { intervalMs, poll(ctx) }')
  if (typeof poll.poll !== 'function') throw fail('poll needs a poll(ctx) function')
  const interval = poll.intervalMs
  if (typeof interval !== 'function' && !(typeof interval === 'number' && Number.isFinite(interval) && interval > 0))
    throw fail('poll.intervalMs must be a positive number of milliseconds or a function of the payload')
}

/** `options`: loaders by payload field, each a function, each field one of the payload's (nested ones by path). */
function checkOptions(pluginId: string, what: string, def: Def) {
  if (def.options === undefined) return
  const options = def.options as Def
  if (!options || typeof options !== 'object') throw new PluginError(pluginId, `${what}: options must be an object`)
  for (const [field, loader] of Object.entries(options)) {
    if (typeof loader !== 'function')
      throw new PluginError(pluginId, `${what}: options.${field} must be a function of its context`)
    if (!optionFieldSchema(def.payload, field))
      throw new PluginError(pluginId, `${what}: options.${field} names no payload field`)
  }
}

export function checkConnector(pluginId: string, connector: AnyConnector): void {
  const def = connector as unknown as Def
  const id = common(pluginId, 'connector', def)
  if (typeof def.provider !== 'string' || !def.provider)
    throw new PluginError(pluginId, `connector "${id}" needs a provider`)
  if (!isObjectSchema(def.data))
    throw new PluginError(pluginId, `connector "${id}" needs a TypeBox object schema as data`)
  if (def.test !== undefined && typeof def.test !== 'function')
    throw new PluginError(pluginId, `connector "${id}": test must be a function`)
  requirement(pluginId, `connector "${id}"`, {
    type: id,
    accountType: def.accountType,
    walletSupport: def.walletSupport,
  })
  for (const [field, schema] of Object.entries(((def.data as TSchema).properties ?? {}) as Record<string, TSchema>)) {
    if (schema[MARKER] === 'secret' && schema.type !== 'string')
      throw new PluginError(pluginId, `connector "${id}": secret field "${field}" must be a string`)
    if (schema[MARKER] !== 'secret' && JSON.stringify(schema).includes(`"${MARKER}":"secret"`)) {
      throw new PluginError(
        pluginId,
        `connector "${id}": only top-level fields of data may be Secret() ("${field}" holds one)`,
      )
    }
  }
}

/** Checks a webhook; returns the connector type it authenticates with (or null). */
export function checkWebhook(pluginId: string, webhook: AnyWebhook): string | null {
  const def = webhook as unknown as Def
  if (!def || typeof def !== 'object')
    throw new PluginError(pluginId, 'a webhook must be an object made with defineWebhook()')
  const id = common(pluginId, 'webhook', def, 'name')
  if (typeof def.path !== 'string' || !WEBHOOK_PATH.test(def.path)) {
    throw new PluginError(
      pluginId,
      `webhook "${id}": path must start with /v1/ and hold path segments or :params (${JSON.stringify(def.path)})`,
    )
  }
  const auth = def.auth as Def | undefined
  if (!auth || typeof auth !== 'object' || !AUTH_KINDS.includes(auth.kind as string)) {
    throw new PluginError(
      pluginId,
      `webhook "${id}": auth must be { kind: ${AUTH_KINDS.map((k) => `'${k}'`).join(' | ')} }`,
    )
  }
  if (auth.kind === 'setting' && (typeof auth.setting !== 'string' || !SETTING.test(auth.setting))) {
    throw new PluginError(pluginId, `webhook "${id}": auth.setting must name an environment variable (UPPER_CASE)`)
  }
  if (auth.kind === 'subscription' && (typeof auth.key !== 'string' || auth.key === '')) {
    throw new PluginError(pluginId, `webhook "${id}": auth.key must name the trigger store key that holds the secret`)
  }
  for (const fn of ['verify', 'receive']) {
    if (typeof def[fn] !== 'function')
      throw new PluginError(pluginId, `webhook "${id}" needs a ${fn}(request, ctx) function`)
  }
  if (def.answer !== undefined && typeof def.answer !== 'function')
    throw new PluginError(pluginId, `webhook "${id}": answer must be a function`)
  if (
    (auth.kind === 'connector' || auth.kind === 'organization' || auth.kind === 'subscription') &&
    !(def.path as string).split('/').includes(':orgId')
  ) {
    throw new PluginError(
      pluginId,
      `webhook "${id}": auth kind '${auth.kind}' needs :orgId in the path (the organization whose secret verifies it)`,
    )
  }
  if (auth.kind !== 'connector') return null
  const type = requirement(pluginId, `webhook "${id}"`, auth.connector)
  if (!type) throw new PluginError(pluginId, `webhook "${id}": auth kind 'connector' needs auth.connector`)
  return type
}

/**
 * Validates a workflow definition against the loaded plugins and lists every problem, each
 * with a JSON pointer into the definition: unknown node types, payloads that do not match
 * their schema (an expression may stand for any value), dangling children, branches, cycles,
 * the triggerNodeIds rules, and expressions that reference nodes which do not run before.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import '../../core/plugin/formats.ts'
import type { TObject, TSchema } from '@sinclair/typebox'
import type { Definition } from '../../core/domain/workflow.ts'
import type { ErrorDetail } from '../../core/errors.ts'
import type { DefinitionCheck, DefinitionChecker } from '../../core/ports/engine.ts'
import type { Registry } from '../../core/plugin/registry.ts'
import { collectReferences, hasExpression, validateCondition } from '../expressions/index.ts'
import { compilePlan, type Plan } from '../engine/plan.ts'
import { LIMITS } from '../engine/state.ts'
import { isNodeId } from '../../core/domain/workflow.ts'

const NODE_ID = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/
const MAX_NODES = 500
const FIXED_ROOTS = new Set(['$trigger', '$vars', '$props', '$workflow', '$run', 'root'])

export function createDefinitionChecker(registry: Registry): DefinitionChecker {
  const checks = new Map<string, TypeCheck<TSchema>>()
  const compiled = (type: string, schema: TSchema) => {
    let check = checks.get(type)
    if (!check) checks.set(type, (check = TypeCompiler.Compile(schema)))
    return check
  }

  function check(definition: Definition): DefinitionCheck {
    const errors: ErrorDetail[] = []
    const add = (path: string, message: string) => errors.push({ path, message })
    if (
      !definition ||
      typeof definition !== 'object' ||
      !definition.nodes ||
      typeof definition.nodes !== 'object' ||
      Array.isArray(definition.nodes)
    ) {
      add('/nodes', 'is required: an object of node id to node')
      return { type: null, errors }
    }
    const ids = Object.keys(definition.nodes)
    if (ids.length === 0) add('/nodes', 'must contain at least one node')
    // Size first: nothing below runs on a definition past the limit.
    if (ids.length > MAX_NODES) {
      add('/nodes', `must contain at most ${MAX_NODES} nodes`)
      return { type: null, errors }
    }
    const ID_RULE = 'a node id is 1 to 64 letters, digits, "_" or "-", and not __proto__, constructor or prototype'
    const references = (value: unknown, at: string) => {
      if (!Array.isArray(value)) return
      value.forEach((ref, i) => {
        if (typeof ref !== 'string' || !isNodeId(ref)) add(`${at}/${i}`, ID_RULE)
      })
    }
    for (const id of ids) {
      if (!isNodeId(id)) {
        add(`/nodes/${id.slice(0, 80)}`, ID_RULE)
        continue
      }
      const node = definition.nodes[id] as { children?: unknown; loopBody?: unknown } | null
      references(node?.children, `/nodes/${id}/children`)
      references(node?.loopBody, `/nodes/${id}/loopBody`)
    }
    references(definition.triggerNodeIds, '/triggerNodeIds')
    if (errors.length > 0) return { type: null, errors }
    const triggerIds = checkTriggers(definition, add)
    checkShape(definition, triggerIds, add)
    // Payloads and references need an acyclic graph; every other problem is listed beside them.
    if (!findCycle(definition, add)) {
      const plan = compilePlan(definition, 'check')
      for (const id of ids) {
        if (plan.node(id).loops.length > LIMITS.loopNesting)
          add(`/nodes/${id}`, `loops nest more than ${LIMITS.loopNesting} deep here`)
        checkPayload(plan, id, add)
      }
    }
    const firstTrigger = triggerIds.find((id) => definition.nodes[id])
    return { type: firstTrigger ? definition.nodes[firstTrigger].type : null, errors }
  }

  function checkTriggers(definition: Definition, add: (p: string, m: string) => void): string[] {
    const listed = definition.triggerNodeIds
    if (listed === undefined) {
      if (!definition.nodes.root) add('/triggerNodeIds', 'is required unless the single trigger node is named "root"')
      return definition.nodes.root ? ['root'] : []
    }
    if (listed.length === 1 && listed[0] !== 'root')
      add('/triggerNodeIds/0', 'a single-trigger workflow lists the literal "root"')
    if (listed.length > 1 && listed.includes('root'))
      add(
        `/triggerNodeIds/${listed.indexOf('root')}`,
        'a multi-trigger workflow must not use "root" as a trigger node id',
      )
    const seen = new Set<string>()
    listed.forEach((id, i) => {
      if (seen.has(id)) add(`/triggerNodeIds/${i}`, `"${id}" is listed twice`)
      seen.add(id)
      if (!definition.nodes[id]) add(`/triggerNodeIds/${i}`, `"${id}" is not a node of this definition`)
    })
    return listed
  }

  function checkShape(definition: Definition, triggerIds: readonly string[], add: (p: string, m: string) => void) {
    const parents = new Map<string, string[]>()
    for (const [id, node] of Object.entries(definition.nodes)) {
      const at = `/nodes/${id}`
      if (!NODE_ID.test(id)) add(at, 'node ids start with a letter or _ and contain letters, digits, _ and -')
      if (id === 'root' && !triggerIds.includes(id)) add(at, '"root" is reserved for the trigger node')
      const isTrigger = triggerIds.includes(id)
      const trigger = registry.trigger(node.type)
      // A type can be both a trigger and an action (`approval`); the node's place decides which.
      const action = isTrigger ? undefined : registry.action(node.type)
      if (isTrigger && !trigger)
        add(
          `${at}/type`,
          registry.action(node.type)
            ? `"${node.type}" is an action, not a trigger type`
            : `unknown trigger type "${node.type}"`,
        )
      if (!isTrigger && !action)
        add(
          `${at}/type`,
          trigger
            ? `"${node.type}" is a trigger type; list this node in triggerNodeIds to use it as a trigger`
            : `unknown node type "${node.type}"`,
        )
      if (node.loopBody?.length && !action?.loop) add(`${at}/loopBody`, `only a loop node (for-each) has a loopBody`)
      if (action?.loop && !node.loopBody?.length)
        add(`${at}/loopBody`, 'a loop node needs a loopBody: the nodes to run for each item')
      const edges: Array<[string, string]> = [
        ...(node.children ?? []).map((c, i): [string, string] => [c, `${at}/children/${i}`]),
        ...(node.loopBody ?? []).map((c, i): [string, string] => [c, `${at}/loopBody/${i}`]),
      ]
      for (const [child, path] of edges) {
        const target = definition.nodes[child]
        if (!target) {
          add(path, `"${child}" is not a node of this definition`)
          continue
        }
        if (triggerIds.includes(child)) add(path, `"${child}" is a trigger node and cannot be a child`)
        if (!parents.has(child)) parents.set(child, [])
        parents.get(child)!.push(id)
      }
      const branches = action?.branches
      for (const child of node.children ?? []) {
        const target = definition.nodes[child]
        if (!target) continue
        if (branches && target.branch === undefined)
          add(`/nodes/${child}/branch`, `is required: a child of "${id}" names its branch (${branches.join(' or ')})`)
        if (branches && target.branch !== undefined && !branches.includes(target.branch))
          add(`/nodes/${child}/branch`, `"${target.branch}" is not a branch of "${id}" (${branches.join(', ')})`)
        if (!branches && target.branch !== undefined && (action || isTrigger))
          add(`/nodes/${child}/branch`, `"${id}" (${node.type}) has no branches`)
      }
    }
    for (const [child, list] of parents) {
      if (list.length > 1 && !list.every((p) => triggerIds.includes(p))) {
        add(
          `/nodes/${child}`,
          `has more than one parent (${list.join(', ')}); a node follows exactly one node, or several trigger nodes`,
        )
      }
    }
  }

  function findCycle(definition: Definition, add: (p: string, m: string) => void): boolean {
    const state = new Map<string, 'open' | 'done'>()
    const path: string[] = []
    const visit = (id: string): boolean => {
      if (state.get(id) === 'done') return false
      if (state.get(id) === 'open') {
        const loop = [...path.slice(path.indexOf(id)), id]
        add(`/nodes/${id}`, `is part of a cycle: ${loop.join(' → ')}`)
        return true
      }
      state.set(id, 'open')
      path.push(id)
      const node = definition.nodes[id]
      for (const next of [...(node?.children ?? []), ...(node?.loopBody ?? [])])
        if (definition.nodes[next] && visit(next)) return true
      path.pop()
      state.set(id, 'done')
      return false
    }
    return Object.keys(definition.nodes).some((id) => visit(id))
  }

  function checkPayload(plan: Plan, id: string, add: (p: string, m: string) => void) {
    const node = plan.node(id)
    const at = `/nodes/${id}/payload`
    const payload = node.def.payload ?? {}
    const isTrigger = plan.triggerIds.includes(id)
    const action = isTrigger ? undefined : registry.action(node.type)
    const schema = (isTrigger ? registry.trigger(node.type)?.payload : action?.payload) as TObject | undefined
    const raw = new Set<string>(action?.raw ?? [])
    if (schema) {
      const validator = compiled(`${isTrigger ? 'trigger' : 'action'}:${node.type}`, schema)
      if (isTrigger && validator.Check(payload)) checkSemantics(node.type, payload, at, add)
      for (const e of validator.Errors(payload)) {
        const value = valueAt(payload, e.path)
        if (typeof value === 'string' && hasExpression(value)) continue // resolved and checked at run time
        if (raw.has(e.path.split('/')[1] ?? '')) continue
        add(`${at}${e.path}`, e.message)
      }
      for (const field of raw) {
        const property = (schema.properties as Record<string, TSchema>)[field]
        if (property?.['x-automaton'] === 'condition' && payload[field] !== undefined) {
          for (const p of validateCondition(payload[field])) add(`${at}/${field}${p.pointer}`, p.message)
        }
      }
    }
    if (action?.type === 'wait') checkWaitTarget(payload, at, add)
    const { refs, errors } = collectReferences(payload)
    for (const e of errors) add(`${at}${e.pointer}`, e.message)
    const ancestors = plan.ancestors(id)
    const variables = new Set([...(plan.definition.variableDefs ?? []).map((v) => v.name)])
    for (const ref of refs) {
      const where = `${at}${ref.pointer}`
      const root = ref.root
      if (FIXED_ROOTS.has(root)) {
        if (
          root === '$vars' &&
          ref.path[0] !== undefined &&
          plan.definition.variableDefs &&
          !variables.has(ref.path[0])
        ) {
          add(where, `{{$vars.${ref.path[0]}}} is not a declared variable`)
        }
        continue
      }
      if (root === '$card') {
        // One-time card handles resolve at send time, only in an outbound HTTP request (agents.md).
        if (node.type !== 'http-request') add(where, '{{$card…}} is only available in an http-request node')
        else if (
          !ref.path[0] ||
          !['number', 'expMonth', 'expYear', 'cvc', 'holderName'].includes(ref.path[1] ?? '') ||
          ref.path.length !== 2
        ) {
          add(where, '{{$card.<handle>.<field>}} names a handle and one of number, expMonth, expYear, cvc, holderName')
        }
        continue
      }
      if (root === '$item' || root === '$index') {
        const inRawField = raw.has(ref.pointer.split('/')[1] ?? '')
        if (node.loops.length === 0 && !inRawField) add(where, `${root} is only available inside a for-each loop body`)
        continue
      }
      if (root === '$parent_item') {
        if (node.loops.length < 2) add(where, '$parent_item is only available inside a nested for-each loop body')
        continue
      }
      if (root === '$for') {
        if (!ref.path[0] || !node.loops.includes(ref.path[0]))
          add(where, `$for.${ref.path[0] ?? ''} does not name a for-each that encloses this node`)
        continue
      }
      const target = root === '$nodes' ? ref.path[0] : root
      if (root.startsWith('$') && root !== '$nodes') {
        add(where, `unknown expression root "${root}"`)
        continue
      }
      if (!target || !plan.nodes.has(target)) {
        add(where, `references "${target ?? ''}", which is not a node of this definition`)
        continue
      }
      if (!ancestors.has(target)) {
        add(where, `references "${target}", which does not run before this node`)
        continue
      }
      const field = root === '$nodes' ? ref.path[1] : ref.path[0]
      if (node.loops.includes(target) && field === 'result')
        add(
          where,
          `the result of "${target}" is not available inside its own loop body; use {{$item}} or {{$for.${target}.item}}`,
        )
    }
  }

  /** A trigger's own check of a payload that matches its schema (a cron expression's syntax). */
  /** A `wait` node on a trigger type: the type must take waits, and what it matches on fits its wait schema. */
  function checkWaitTarget(payload: Record<string, unknown>, at: string, add: (p: string, m: string) => void) {
    const type = payload.triggerType
    if (typeof type !== 'string' || hasExpression(type)) return
    const trigger = registry.trigger(type)
    if (!trigger) return add(`${at}/triggerType`, `unknown trigger type "${type}"`)
    if (trigger.schedule)
      return add(
        `${at}/triggerType`,
        `"${type}" fires on a schedule and cannot be waited for; use a delay node to wait for a time`,
      )
    if (!trigger.waitPayload)
      return add(`${at}/triggerType`, `"${type}" cannot be waited for; leave triggerType out to wait for a resume call`)
    const config = payload.triggerConfig
    if (!config || typeof config !== 'object') return
    for (const e of compiled(`wait:${type}`, trigger.waitPayload).Errors(config)) {
      const value = valueAt(config as Record<string, unknown>, e.path)
      if (typeof value === 'string' && hasExpression(value)) continue
      add(`${at}/triggerConfig${e.path}`, e.message)
    }
  }

  function checkSemantics(type: string, payload: unknown, at: string, add: (p: string, m: string) => void) {
    const validate = registry.trigger(type)?.validate
    if (!validate) return
    try {
      for (const problem of validate(payload as never)) add(`${at}${problem.path ?? ''}`, problem.message)
    } catch (error) {
      add(at, `is invalid: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  return {
    check,
    missingTypes(definition) {
      const triggerIds = new Set(definition.triggerNodeIds ?? ['root'])
      return [
        ...new Set(
          Object.entries(definition.nodes ?? {})
            .filter(([id, n]) => (triggerIds.has(id) ? !registry.trigger(n.type) : !registry.action(n.type)))
            .map(([, n]) => n.type),
        ),
      ]
    },
  }
}

function valueAt(value: unknown, pointer: string): unknown {
  let current = value
  for (const part of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return current
}

/**
 * Validates a workflow definition against the loaded plugins and lists every problem, each
 * with a JSON pointer into the definition: unknown node types, payloads that do not match
 * their schema (an expression may stand for any value), dangling children, branches, cycles,
 * the triggerNodeIds rules, and expressions that reference nodes which do not run before.
 * A node is checked against its own version of its type (`typeVersion`, the latest when absent).
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import '../../core/plugin/formats.ts'
import type { TSchema } from '@sinclair/typebox'
import type { Definition } from '../../core/domain/workflow.ts'
import type { ErrorDetail } from '../../core/errors.ts'
import type { DefinitionCheck, DefinitionChecker } from '../../core/ports/engine.ts'
import type { Registry } from '../../core/plugin/registry.ts'
import { pinVersions } from '../../core/plugin/migrations.ts'
import { compilePlan } from '../engine/plan.ts'
import { LIMITS } from '../engine/state.ts'
import { checkPayload } from './check-payload.ts'
import { checkIds, checkShape, checkTriggers, findCycle } from './check-structure.ts'

const MAX_NODES = 1000

export function createDefinitionChecker(registry: Registry): DefinitionChecker {
  const checks = new Map<string, TypeCheck<TSchema>>()
  const compiled = (type: string, schema: TSchema) => {
    let check = checks.get(type)
    if (!check) checks.set(type, (check = TypeCompiler.Compile(schema)))
    return check
  }

  function check(definition: Definition): DefinitionCheck {
    const errors: ErrorDetail[] = []
    const warnings: ErrorDetail[] = []
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
    checkIds(definition, ids, add)
    if (errors.length > 0) return { type: null, errors }
    const triggerIds = checkTriggers(definition, add)
    checkShape(registry, definition, triggerIds, add)
    // Payloads and references need an acyclic graph; every other problem is listed beside them.
    if (!findCycle(definition, add)) {
      const plan = compilePlan(definition, 'check')
      const deps = {
        registry,
        compiled,
        add,
        warn: (path: string, message: string) => warnings.push({ path, message }),
      }
      for (const id of ids) {
        if (plan.node(id).loops.length > LIMITS.loopNesting)
          add(`/nodes/${id}`, `loops nest more than ${LIMITS.loopNesting} deep here`)
        checkPayload(deps, plan, id)
      }
    }
    const firstTrigger = triggerIds.find((id) => definition.nodes[id])
    return { type: firstTrigger ? definition.nodes[firstTrigger].type : null, errors, warnings }
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
    pinVersions: (definition) => pinVersions(registry, definition),
  }
}

export { pinVersions }

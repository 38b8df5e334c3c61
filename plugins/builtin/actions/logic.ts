/** Branching and list handling: if, for-each, filter, pluck. */
import { Condition, defineAction, Type } from '../../../core/plugin/sdk.ts'

export const ifNode = defineAction({
  type: 'if',
  name: 'If',
  description: 'Evaluates a condition; children on the "then" branch run when it holds, on "else" otherwise.',
  tags: ['logic', 'core'],
  pure: true,
  payload: Type.Object({ condition: Condition() }),
  result: Type.Object({ value: Type.Boolean() }),
  branches: ['then', 'else'],
  raw: ['condition'],
  run(ctx) {
    const value = ctx.evaluateCondition(ctx.payload.condition)
    return ctx.branch(value ? 'then' : 'else', { value })
  },
})

export const forEach = defineAction({
  type: 'for-each',
  name: 'For each',
  description:
    'Runs the loopBody nodes once per item of an array, in order ({{$item}}, {{$index}}); then its children.',
  tags: ['logic', 'core'],
  pure: true,
  payload: Type.Object({ array: Type.Array(Type.Any(), { description: 'at most 100 items' }) }),
  result: Type.Object({
    results: Type.Array(Type.Record(Type.String(), Type.Any()), {
      description: "per item: each body node's result by node id",
    }),
  }),
  loop: true,
  run: (ctx) => ctx.loop(ctx.payload.array),
})

export const filter = defineAction({
  type: 'filter',
  name: 'Filter',
  description: 'Keeps the items of an array for which a condition on {{$item}} holds.',
  tags: ['logic', 'core'],
  pure: true,
  payload: Type.Object({ array: Type.Array(Type.Any()), condition: Condition() }),
  result: Type.Object({ items: Type.Array(Type.Any()), count: Type.Integer() }),
  raw: ['condition'],
  run(ctx) {
    const items = ctx.payload.array.filter((item, index) =>
      ctx.evaluateCondition(ctx.payload.condition, { $item: item, $index: index }),
    )
    return { items, count: items.length }
  },
})

function pick(item: unknown, path: string): unknown {
  let current = item
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current as object, part)) return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}

export const pluck = defineAction({
  type: 'pluck',
  name: 'Pluck',
  description: 'Keeps only the named fields (dot paths allowed) of each item of an array.',
  tags: ['logic', 'core'],
  pure: true,
  payload: Type.Object({
    array: Type.Array(Type.Any()),
    fields: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  }),
  result: Type.Object({ items: Type.Array(Type.Record(Type.String(), Type.Any())) }),
  run(ctx) {
    return {
      items: ctx.payload.array.map((item) =>
        Object.fromEntries(ctx.payload.fields.map((f) => [f, pick(item, f) ?? null])),
      ),
    }
  },
})

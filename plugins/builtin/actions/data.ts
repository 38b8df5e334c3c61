/** Working with data: log, regex, code-transform, set-variable. */
import { defineAction, Type } from '../../../core/plugin/sdk.ts'

export const log = defineAction({
  type: 'log',
  name: 'Log',
  description: "Writes a message to the run's log.",
  tags: ['data', 'core'],
  pure: true,
  payload: Type.Object({ message: Type.Any() }),
  result: Type.Object({ message: Type.Any() }),
  run(ctx) {
    const { message } = ctx.payload
    ctx.log(typeof message === 'string' ? message : JSON.stringify(message))
    return { message }
  },
})

// Runs in the sandbox, so a pathological pattern is stopped by its time limit instead of
// blocking the engine (JavaScript regular expressions cannot be interrupted otherwise).
const REGEX_CODE = `function transform(i) {
  var m = new RegExp(i.pattern, i.flags).exec(i.input);
  if (!m) return { matched: false, matches: {} };
  var matches = {};
  for (var k = 0; k < m.length; k++) matches[String(k)] = m[k] === undefined ? null : m[k];
  if (m.groups) for (var name in m.groups) matches[name] = m.groups[name] === undefined ? null : m.groups[name];
  return { matched: true, matches: matches };
}`

export const regex = defineAction({
  type: 'regex',
  name: 'Regex',
  description: 'Matches a regular expression; matches["0"] is the whole match, "1"… the groups, named groups by name.',
  tags: ['data', 'core'],
  payload: Type.Object({
    input: Type.String({ maxLength: 1_000_000 }),
    pattern: Type.String({ minLength: 1, maxLength: 2000 }),
    flags: Type.Optional(Type.String({ pattern: '^[dgimsuy]*$', default: '' })),
  }),
  result: Type.Object({
    matched: Type.Boolean(),
    matches: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])),
  }),
  async run(ctx) {
    const { output } = await ctx.services.runCode(REGEX_CODE, {
      input: ctx.payload.input,
      pattern: ctx.payload.pattern,
      flags: (ctx.payload.flags ?? '').replace('g', ''),
    })
    return output as { matched: boolean; matches: Record<string, string | null> }
  },
})

export const codeTransform = defineAction({
  type: 'code-transform',
  name: 'Code',
  description:
    'Runs JavaScript that defines function transform(input) in a sandbox: no network, no host access, bounded time and memory.',
  tags: ['data', 'core'],
  payload: Type.Object({
    code: Type.String({ minLength: 1, maxLength: 100_000 }),
    input: Type.Optional(Type.Any()),
  }),
  result: Type.Object({ output: Type.Any() }),
  async run(ctx) {
    const { output, logs } = await ctx.services.runCode(ctx.payload.code, ctx.payload.input ?? null)
    for (const line of logs) ctx.log(line)
    return { output }
  },
})

export const setVariable = defineAction({
  type: 'set-variable',
  name: 'Set variable',
  description:
    'Sets a workflow variable ({{$vars.name}}); a variable with lifetime "persist" keeps its value for later runs.',
  tags: ['data', 'core'],
  pure: true,
  payload: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    value: Type.Any(),
  }),
  result: Type.Object({ name: Type.String(), value: Type.Any() }),
  run(ctx) {
    ctx.vars.set(ctx.payload.name, ctx.payload.value)
    return { name: ctx.payload.name, value: ctx.payload.value }
  },
})

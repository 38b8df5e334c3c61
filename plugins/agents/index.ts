/**
 * Agents: the `agent` trigger every agent run starts with, the nodes an agent run is made of
 * (`agent-model` takes one model step, `agent-tools` runs the tools it asked for), the
 * `automaton-api` tool (this installation's API, with the run's worker session), and the
 * built-in agent types `researcher` and `workflow-builder`.
 *
 * An agent run is an engine run of a generated definition: model → tools → model → … up to the
 * type's maxSteps, the last model step without tools. Every step is a journaled node execution,
 * so a worker that dies mid-run is taken over and the run goes on from its last finished step.
 */
import { defineAction, defineAgent, definePlugin, defineTrigger, TriggerEvent, Type } from '../../core/plugin/sdk.ts'
import type { AgentMessage } from '../../core/plugin/sdk.ts'

/** What a tool answer may hold before it is cut, so that a transcript stays within the model's reach. */
const TOOL_ANSWER_CHARS = 20_000

const Transcript = Type.Array(Type.Record(Type.String(), Type.Any()), {
  description: 'the conversation so far: { role, content, toolCalls?, toolCallId? }',
})
const ToolSpec = Type.Object({
  name: Type.String(),
  description: Type.String(),
  parameters: Type.Record(Type.String(), Type.Any()),
})

export const agentTrigger = defineTrigger({
  type: 'agent',
  name: 'Agent run',
  description: 'Starts an agent run (POST /v1/agent-runs): the body holds the prompt, the payload and the transcript.',
  tags: ['agent', 'core'],
  platform: 'core',
  connector: null,
  payload: Type.Object({}),
  result: TriggerEvent(
    Type.Object({
      agentType: Type.String(),
      prompt: Type.String(),
      payload: Type.Record(Type.String(), Type.Any(), {
        description: 'the agent-type-specific input, passed through unread',
      }),
      conversationId: Type.String(),
      transcript: Transcript,
      parentSpan: Type.Optional(Type.String()),
      parentProject: Type.Optional(Type.String()),
    }),
  ),
  waitPayload: Type.Object({ agentType: Type.Optional(Type.String()) }),
})

export const agentModel = defineAction({
  type: 'agent-model',
  name: 'Agent model step',
  description:
    'One model step of an agent run: the model answers, or asks for tools (branch "tools"); an answer without tool calls ends the run (branch "done").',
  tags: ['agent'],
  payload: Type.Object({
    system: Type.String(),
    tools: Type.Array(ToolSpec),
    transcript: Transcript,
    /** The last step answers without tools. */
    final: Type.Boolean({ default: false }),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 32_000 })),
  }),
  result: Type.Object({
    transcript: Transcript,
    text: Type.String(),
    toolCalls: Type.Array(Type.Any()),
    credits: Type.Number(),
  }),
  branches: ['tools', 'done'],
  async run(ctx) {
    const transcript = ctx.payload.transcript as unknown as AgentMessage[]
    const turn = await ctx.services.modelTurn({
      messages: [{ role: 'system', content: ctx.payload.system }, ...transcript],
      tools: ctx.payload.final ? [] : ctx.payload.tools,
      maxTokens: ctx.payload.maxTokens,
    })
    const asks = !ctx.payload.final && turn.toolCalls.length > 0
    ctx.log('model step', { toolCalls: asks ? turn.toolCalls.map((c) => c.name) : [], credits: turn.credits })
    const said: AgentMessage = { role: 'assistant', content: turn.text, ...(asks ? { toolCalls: turn.toolCalls } : {}) }
    const result = {
      transcript: [...transcript, said] as unknown as Record<string, unknown>[],
      text: turn.text,
      toolCalls: asks ? turn.toolCalls : [],
      credits: turn.credits,
    }
    return ctx.branch(asks ? 'tools' : 'done', result)
  },
})

export const agentTools = defineAction({
  type: 'agent-tools',
  name: 'Agent tool calls',
  description:
    'Runs the tools the previous model step asked for (only those of the agent type) and adds their answers to the transcript; a tool that fails answers its error to the model.',
  tags: ['agent'],
  payload: Type.Object({ allowed: Type.Array(Type.String()), transcript: Transcript }),
  result: Type.Object({
    transcript: Transcript,
    calls: Type.Array(Type.Object({ name: Type.String(), ok: Type.Boolean() })),
  }),
  async run(ctx) {
    const transcript = ctx.payload.transcript as unknown as AgentMessage[]
    const asked = [...transcript].reverse().find((m) => m.role === 'assistant')?.toolCalls ?? []
    const answers: AgentMessage[] = []
    const calls: { name: string; ok: boolean }[] = []
    for (const call of asked) {
      let content: string
      let ok = false
      try {
        if (!ctx.payload.allowed.includes(call.name))
          throw new Error(`"${call.name}" is not a tool of this agent (${ctx.payload.allowed.join(', ') || 'none'})`)
        let args: unknown
        try {
          args = call.arguments.trim() ? JSON.parse(call.arguments) : {}
        } catch {
          throw new Error('the arguments are not JSON')
        }
        if (typeof args !== 'object' || args === null || Array.isArray(args))
          throw new Error('the arguments must be a JSON object')
        const output = await ctx.services.runTool(call.name, args as Record<string, unknown>)
        content = JSON.stringify(output ?? null)
        ok = true
      } catch (error) {
        // The signal (cancel, timeout) stops the run; anything else is the model's to read.
        if (ctx.signal.aborted) throw error
        content = JSON.stringify({ error: error instanceof Error ? error.message : String(error) })
      }
      if (content.length > TOOL_ANSWER_CHARS)
        content = `${content.slice(0, TOOL_ANSWER_CHARS)}… (cut at ${TOOL_ANSWER_CHARS} characters)`
      answers.push({ role: 'tool', toolCallId: call.id, content })
      calls.push({ name: call.name, ok })
      ctx.log('tool call', { tool: call.name, ok })
    }
    return { transcript: [...transcript, ...answers] as unknown as Record<string, unknown>[], calls }
  },
})

export const automatonApi = defineAction({
  type: 'automaton-api',
  name: 'Automaton API',
  description:
    "Calls this installation's /v1 API as the agent run's worker session: only what the agent type is allowed, and only while the run lasts.",
  tags: ['agent'],
  payload: Type.Object({
    method: Type.Union(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => Type.Literal(m))),
    path: Type.String({
      pattern: '^/v1/',
      maxLength: 2000,
      description: 'a /v1 path with its query, e.g. /v1/workflows?limit=5',
    }),
    body: Type.Optional(Type.Unknown()),
    ifMatch: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'the etag a read answered: a write over a change made since is refused with 412',
      }),
    ),
  }),
  result: Type.Object({
    status: Type.Integer(),
    body: Type.Unknown(),
    etag: Type.Optional(Type.String({ description: 'the ETag answered, to send back as ifMatch when writing' })),
  }),
  run: (ctx) => ctx.services.api(ctx.payload),
})

export const researcher = defineAgent({
  type: 'researcher',
  name: 'Researcher',
  description:
    'Answers a question by fetching web pages and APIs with HTTP requests (through the outbound guard), then summarises what it found.',
  system:
    'You are a careful researcher. Use the http-request tool to fetch what you need (GET unless told otherwise), then answer the question concisely, naming the sources you used.',
  tools: ['http-request'],
  permissions: ['run:read'],
  maxSteps: 8,
  input: Type.Object({ urls: Type.Optional(Type.Array(Type.String(), { description: 'pages to start from' })) }),
})

export const workflowBuilder = defineAgent({
  type: 'workflow-builder',
  name: 'Workflow builder',
  description:
    'Builds a workflow from a description: reads the catalog and creates the workflow as a draft through the API.',
  system:
    'You build Automaton workflows. Read the catalog (GET /v1/actions, GET /v1/triggers) with the automaton-api tool, then create the workflow with POST /v1/workflows { name, description, definition }. Answer with the id of the workflow you made and what it does.',
  tools: ['automaton-api'],
  permissions: ['workflow:read', 'workflow:create', 'workflow:update', 'action:read'],
  maxSteps: 10,
})

export default definePlugin({
  id: 'agents',
  name: 'Agents',
  version: '1.0.0',
  triggers: [agentTrigger],
  actions: [agentModel, agentTools, automatonApi],
  agents: [researcher, workflowBuilder],
})

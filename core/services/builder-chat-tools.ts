/**
 * What the builder chat's model is told and may call: the system prompt listing the catalog,
 * `propose_workflow` (checked, then applied to the draft) and `test_run` (a run of the draft the
 * person sees live).
 */
import type { Catalog } from '../plugin/catalog.ts'
import type { AiTool, AiToolCall } from '../ports/ai.ts'
import type { Principal } from './auth.ts'
import type { BuilderChatDeps } from './builder-chat.ts'
import { applyProposal } from './builder-chat-proposals.ts'
import type { Emit } from './chat-transcript.ts'

export const TOOLS: AiTool[] = [
  {
    name: 'propose_workflow',
    description:
      'Propose the whole workflow definition. It is checked; if it is refused you get the problems and may propose again.',
    parameters: {
      type: 'object',
      required: ['definition'],
      properties: {
        name: { type: 'string', description: 'A short name for the workflow' },
        description: { type: 'string', description: 'One or two sentences on what it does' },
        definition: {
          type: 'object',
          description: '{ triggerNodeIds: [id], nodes: { <id>: { type, payload?, children? } } }',
        },
      },
    },
  },
  {
    name: 'test_run',
    description: 'Start a test run of the current draft with a payload; the person sees it live.',
    parameters: { type: 'object', properties: { payload: { type: 'object' } } },
  },
]

export function systemPrompt(catalog: Catalog): string {
  const line = (e: { type: string; description: string }) => `- ${e.type}: ${e.description}`
  return [
    'You build workflows for Automaton, a workflow automation service, by calling propose_workflow with a complete definition.',
    'A definition is { "triggerNodeIds": ["root"], "nodes": { "root": { "type": "<trigger type>", "payload": {…}, "children": ["next"] }, "next": { "type": "<action type>", "payload": {…} } } }.',
    'Node ids use letters, digits, "_" and "-". Payload values may use expressions such as {{$trigger.body.field}} or {{root.result}}.',
    'Trigger types:',
    ...catalog.triggers.slice(0, 60).map(line),
    'Action types:',
    ...catalog.actions.slice(0, 80).map(line),
    'Answer briefly; explain what you built after proposing it.',
  ].join('\n')
}

/** One turn of the builder chat: the workflow it works on, and what its tools have done so far. */
export interface BuilderTurn {
  readonly deps: BuilderChatDeps
  readonly caller: Principal
  readonly emit: Emit
  workflowId: string | null
  /** The ETag of the draft the model was shown (null: no workflow yet): proposals must still match it. */
  etag: string | null
  linkedRun: string | null
  proposal: unknown
}

/** What the model is answered for one of its tool calls; a tool that fails answers the error. */
export async function answerToolCall(turn: BuilderTurn, call: AiToolCall): Promise<unknown> {
  try {
    const args = JSON.parse(call.arguments || '{}') as Record<string, unknown>
    if (call.name === 'propose_workflow') return await propose(turn, args)
    if (call.name === 'test_run') return await testRun(turn, args)
    return { error: `unknown tool ${call.name}` }
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
}

async function propose(turn: BuilderTurn, args: Record<string, unknown>) {
  const applied = await applyProposal(turn.deps, turn.caller, turn.workflowId, args, turn.etag)
  if ('problems' in applied) return { accepted: false, problems: applied.problems }
  turn.workflowId = applied.workflowId
  turn.etag = applied.etag
  turn.proposal = args.definition
  turn.emit('workflow.proposed', applied)
  return { accepted: true, workflowId: turn.workflowId, version: applied.version }
}

async function testRun(turn: BuilderTurn, args: Record<string, unknown>) {
  if (!turn.workflowId) return { error: 'propose a workflow first' }
  const started = await turn.deps.runs.start(
    turn.caller,
    turn.workflowId,
    { payload: (args.payload as Record<string, unknown>) ?? {} },
    new Headers(),
  )
  turn.linkedRun = started.runId
  turn.emit('run.linked', { runId: started.runId })
  return { runId: started.runId }
}

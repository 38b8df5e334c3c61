/**
 * The side panel of one node in the workflow editor: its id, its connector, and a form generated
 * from its type's payload schema, each field showing its validation problems; string fields are
 * expression editors with completion and a preview against the last run. Every edit goes to
 * `onChange(pointer, value)` with an RFC 6901 pointer into the node object, which the editor
 * records for undo; the panel keeps no copy of the node.
 */
import { ConnectorPicker } from './connector-picker.tsx'
import { FieldView, JsonField } from './field-view.tsx'
import type { FormContext } from './form-context.ts'
import { mountPanelStyle } from './panel-style.ts'
import { otherProblems } from './problems.ts'
import { RenameInput } from './rename-input.tsx'
import { type FieldModel, objectFields } from './schema-model.ts'

export interface NodePanelProps {
  workflowId: string
  nodeId: string
  /** The node object of the definition: `{ type, payload, connector?, children, branch?, typeVersion? }`. */
  node: Record<string, unknown>
  isTrigger: boolean
  /** The catalog entry of node.type (payloadSchema, connector requirement, x-dynamic-options marks). */
  entry: Record<string, any> | undefined
  /** Validation problems of this node, pointers into the node object ('/payload/message'). */
  problems: { pointer: string; message: string }[]
  upstream: { id: string; type: string; resultSchema?: unknown; lastResult?: unknown }[]
  lastRun?: { id: string; nodes: Record<string, any>; triggerEvent?: unknown }
  /** A pointer into the node object and its new value (undefined removes it); recorded for undo. */
  onChange(pointer: string, value: unknown): void
  onRename(newId: string): void
}

export function NodePanel(props: NodePanelProps) {
  mountPanelStyle()
  const { node, entry } = props
  const type = String(node.type ?? '')
  const ctx: FormContext = {
    node,
    scope: { upstream: props.upstream, lastRun: props.lastRun },
    problems: props.problems,
    onChange: props.onChange,
    optionsPath: `/v1/catalog/${props.isTrigger ? 'triggers' : 'actions'}/${encodeURIComponent(type)}/options`,
    connectorId: (node.connector as { id?: string } | undefined)?.id,
  }
  const fields = entry ? objectFields(entry.payloadSchema, '/payload') : []
  const others = otherProblems(fields, node, props.problems).filter(
    (p) => p.pointer !== '/connector' || !entry?.connector,
  )
  return (
    <div class="node-panel" data-testid={`panel:${props.nodeId}`}>
      <header>
        <h2>{entry?.name ?? type}</h2>
        <p class="hint">
          {props.isTrigger ? 'trigger' : 'action'} <code>{type}</code>
        </p>
        {entry?.description ? <p class="hint">{entry.description}</p> : null}
      </header>
      <RenameInput nodeId={props.nodeId} onRename={props.onRename} />
      {others.length ? (
        <div class="error" role="alert" data-testid="panel-problems">
          <strong>
            {others.length} problem{others.length === 1 ? '' : 's'} of this node
          </strong>
          <ul>
            {others.map((p) => (
              <li>
                {p.pointer ? <code>{p.pointer}</code> : null} {p.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {entry?.connector?.type ? (
        <ConnectorPicker
          type={entry.connector.type}
          value={node.connector}
          problems={props.problems}
          onChange={props.onChange}
        />
      ) : null}
      <PayloadForm key={props.nodeId} fields={fields} ctx={ctx} known={!!entry} />
    </div>
  )
}

function PayloadForm({ fields, ctx, known }: { fields: FieldModel[]; ctx: FormContext; known: boolean }) {
  if (!known) {
    // A type the catalog does not list: its payload is still editable, as JSON.
    const field: FieldModel = {
      pointer: '/payload',
      key: 'payload',
      label: 'Payload',
      required: false,
      kind: 'json',
      schema: {},
      dynamic: false,
    }
    return (
      <div class="field">
        <p class="hint">This type is not in the catalog; its payload is edited as JSON.</p>
        <label for="node-payload">Payload</label>
        <JsonField field={field} ctx={ctx} value={ctx.node.payload} inputId="node-payload" />
      </div>
    )
  }
  if (fields.length === 0) return <p class="hint">This node has nothing to configure.</p>
  return (
    <form class="node-form" onSubmit={(e) => e.preventDefault()}>
      {fields.map((field) => (
        <FieldView key={field.pointer} field={field} ctx={ctx} />
      ))}
    </form>
  )
}

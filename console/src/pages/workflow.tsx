/** A workflow: its draft in the editor, versions, draft and live state, the lifecycle actions, and run now. */
import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.ts'
import { navigate } from '../router.ts'
import { ErrorBox, Page, parseTyped, StatusBadge, confirmed, useAction, useLoad, when } from '../ui.tsx'
import { BuilderChat } from './builder-chat.tsx'
import { PolledTriggers } from './workflow-triggers.tsx'
import { FlowControlSettings } from '../editor/flow-control-settings.tsx'

export function WorkflowPage({ id }: { id: string }) {
  const workflow = useLoad(() => api('GET', `/v1/workflows/${id}`), [id])
  const versions = useLoad(() => api<{ items: any[] }>('GET', `/v1/workflows/${id}/versions?limit=20`), [id])
  const { error, run } = useAction()
  // A draft proposed by the builder chat is opened in the editor afresh.
  const [opened, setOpened] = useState(0)
  const w = workflow.data
  const reload = () => {
    workflow.reload()
    versions.reload()
  }
  /** Opens the draft in the editor afresh, then reloads the workflow and its versions. */
  const reopen = () => {
    setOpened((n) => n + 1)
    reload()
  }
  const act: Act = (label, method, path, ask) => async () => {
    if (ask && !confirmed(ask)) return
    await run(async () => {
      await api(method, path)
      reload()
    })
    void label
  }
  /** Copies an earlier version into a new draft, then opens that draft in the editor. */
  const rollback = (version: number) => async () => {
    const ask = `Roll back to version ${version}? It becomes the draft (unsaved edits in the editor are dropped); publish it to make it live.`
    if (!confirmed(ask)) return
    await run(async () => {
      await api('POST', `/v1/workflows/${id}/rollback`, { version })
      reopen()
    })
  }
  if (workflow.error)
    return (
      <Page title="Workflow">
        <ErrorBox error={workflow.error} />
      </Page>
    )
  if (!w)
    return (
      <Page title="Workflow">
        <p>Loading…</p>
      </Page>
    )
  // The live version's state, and whether a draft waits to be published beside it.
  const live = w.status === 'archived' || !w.hasLiveVersion ? null : w.liveVersionPaused ? 'paused' : 'active'
  return (
    <Page
      title={<WorkflowTitle w={w} live={live} />}
      actions={<LifecycleActions id={id} w={w} live={live} act={act} />}
    >
      <ErrorBox error={error} />
      <WorkflowFacts w={w} />
      <LazyEditor key={opened} workflowId={id} onSaved={reload} />
      <div class="with-chat">
        <div>
          <RunNow id={id} disabled={w.status === 'archived'} />
        </div>
        <BuilderChat workflowId={id} onProposed={reopen} />
      </div>
      <PolledTriggers id={id} />
      <FlowControlSettings id={id} flowControl={w.flowControl ?? null} onSaved={reopen} />
      <Versions items={versions.data?.items ?? []} w={w} rollback={rollback} />
    </Page>
  )
}

/** Makes the handler of a lifecycle button: asks first when `ask` is given, then reloads the workflow. */
type Act = (label: string, method: string, path: string, ask?: string) => () => Promise<void>
/** The live version's state: null when there is none (or the workflow is archived). */
type Live = 'active' | 'paused' | null

/** The workflow's name, its state, and whether a draft waits to be published beside the live version. */
function WorkflowTitle({ w, live }: { w: any; live: Live }) {
  return (
    <>
      {w.name} {live ? <StatusBadge status={live} /> : <StatusBadge status={w.status} />}{' '}
      {live && w.hasDraft ? (
        <span class="badge" data-status="draft">
          draft pending
        </span>
      ) : null}
    </>
  )
}

/** Publish, pause or resume, archive or unarchive, and the link to the workflow's runs. */
function LifecycleActions({ id, w, live, act }: { id: string; w: any; live: Live; act: Act }) {
  return (
    <>
      {w.status !== 'archived' ? (
        <button
          type="button"
          onClick={act('publish', 'POST', `/v1/workflows/${id}/publish`)}
          disabled={!w.hasDraft && w.hasLiveVersion}
        >
          Publish
        </button>
      ) : null}
      {live === 'active' ? (
        <button type="button" onClick={act('pause', 'POST', `/v1/workflows/${id}/pause`)}>
          Pause
        </button>
      ) : null}
      {live === 'paused' ? (
        <button type="button" onClick={act('resume', 'POST', `/v1/workflows/${id}/resume`)}>
          Resume
        </button>
      ) : null}
      {w.status !== 'archived' ? (
        <button
          type="button"
          class="danger"
          onClick={act(
            'archive',
            'DELETE',
            `/v1/workflows/${id}`,
            `Archive "${w.name}"? Its triggers stop until it is brought back.`,
          )}
        >
          Archive
        </button>
      ) : (
        <button type="button" onClick={act('unarchive', 'POST', `/v1/workflows/${id}/unarchive`)}>
          Unarchive
        </button>
      )}
      <a class="button" href={`/runs?workflowId=${id}`}>
        Runs
      </a>
    </>
  )
}

/** Version, trigger, when it last triggered, and why it is paused. */
function WorkflowFacts({ w }: { w: any }) {
  return (
    <dl class="facts">
      <dt>Version</dt>
      <dd>
        {w.version}
        {w.hasDraft ? ' (draft)' : ''}
        {w.hasLiveVersion ? ', live version published' : ', not published'}
      </dd>
      <dt>Trigger</dt>
      <dd>{w.type}</dd>
      <dt>Last triggered</dt>
      <dd>{when(w.lastTriggeredAt)}</dd>
      {w.pausedReason ? (
        <>
          <dt>Paused because</dt>
          <dd>{w.pausedReason}</dd>
        </>
      ) : null}
    </dl>
  )
}

/** The versions, each but the current one with a button to roll back to it. */
function Versions({ items, w, rollback }: { items: any[]; w: any; rollback: (version: number) => () => void }) {
  return (
    <>
      <h2>Versions</h2>
      <table class="list">
        <thead>
          <tr>
            <th>Version</th>
            <th>By</th>
            <th>Updated</th>
            <th>Action</th>
          </tr>
        </thead>
        <tbody>
          {items.map((v) => (
            <tr data-version={v.version}>
              <td>{v.version}</td>
              <td title={v.versionCreatedBy}>{v.versionCreatedByName ?? v.versionCreatedBy}</td>
              <td>{when(v.updatedAt)}</td>
              <td>
                {v.version !== w.version && w.status !== 'archived' ? (
                  <button type="button" data-testid={`rollback:${v.version}`} onClick={rollback(v.version)}>
                    Roll back to this
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}

type EditorProps = { workflowId: string; onSaved?: () => void }

/** The editor is its own chunk, loaded when a workflow is first opened. */
function LazyEditor(props: EditorProps) {
  const [Editor, setEditor] = useState<ComponentType<EditorProps> | null>(null)
  const [failed, setFailed] = useState<unknown>(null)
  useEffect(() => {
    import('../editor/editor.tsx').then((module) => setEditor(() => module.default), setFailed)
  }, [])
  if (failed) return <ErrorBox error={failed} />
  return Editor ? (
    <Editor {...props} />
  ) : (
    <div class="editor">
      <p class="hint">Loading the editor…</p>
    </div>
  )
}

function RunNow({ id, disabled }: { id: string; disabled: boolean }) {
  const [payload, setPayload] = useState('{}')
  const { error, run } = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    await run(async () => {
      const parsed = parseTyped(payload, 'payload')
      const started = await api('POST', `/v1/workflows/${id}/run`, { payload: parsed })
      navigate(`/runs/${started.runId}`)
    })
  }
  return (
    <form class="card run-now" onSubmit={submit}>
      <label>
        Run now with this payload (JSON)
        <textarea
          name="payload"
          data-testid="run-now-payload"
          rows={4}
          value={payload}
          onInput={(e) => setPayload((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <ErrorBox error={error} />
      <button type="submit" data-testid="run-now" disabled={disabled}>
        Run now
      </button>
    </form>
  )
}

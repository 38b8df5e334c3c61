/** Workflows: search and status in the URL; a new workflow from its definition. */
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { location, navigate, setFilter } from '../router.ts'
import { StatusFilter } from '../fields.tsx'
import { EmptyNote, ListTable } from '../list.tsx'
import { ErrorBox, Page, parseTyped, StatusBadge, useAction, useLoad, when } from '../ui.tsx'

const STATUSES = ['', 'draft', 'active', 'paused', 'archived']

const STARTER = JSON.stringify(
  {
    triggerNodeIds: ['root'],
    nodes: {
      root: { type: 'manual', children: ['say'] },
      say: { type: 'log', payload: { message: 'hello {{$trigger.body.name}}' } },
    },
  },
  null,
  2,
)

export function Workflows() {
  const query = location.value.query
  const search = query.get('search') ?? ''
  const status = query.get('status') ?? ''
  const list = useLoad(() => {
    const q = new URLSearchParams({ limit: '100' })
    if (search) q.set('search', search)
    if (status) q.set('status', status)
    return api<{ items: any[] }>('GET', `/v1/workflows?${q}`)
  }, [search, status])
  const [creating, setCreating] = useState(false)
  const set = (key: string, value: string) => setFilter(key, value, true)
  return (
    <Page
      title="Workflows"
      actions={
        <button type="button" onClick={() => setCreating(!creating)}>
          New workflow
        </button>
      }
    >
      {creating ? <NewWorkflow /> : null}
      <div class="filters">
        <input
          type="search"
          placeholder="Search by name"
          value={search}
          onChange={(e) => set('search', (e.target as HTMLInputElement).value)}
          aria-label="search"
        />
        <StatusFilter statuses={STATUSES} value={status} onValue={(value) => set('status', value)} />
      </div>
      <ErrorBox error={list.error} />
      <ListTable heads={['Name', 'Status', 'Trigger', 'Version', 'Updated']}>
        {(list.data?.items ?? []).map((w) => (
          <tr>
            <td>
              <a href={`/workflows/${w.id}`}>{w.name}</a>
            </td>
            <td>
              <StatusBadge status={w.status} />
            </td>
            <td>{w.type}</td>
            <td>
              {w.version}
              {w.hasDraft && w.hasLiveVersion ? ' (draft)' : ''}
            </td>
            <td>{when(w.updatedAt)}</td>
          </tr>
        ))}
      </ListTable>
      <EmptyNote items={list.data?.items}>
        {search || status
          ? 'No workflows match: clear the search or the status filter.'
          : 'No workflows yet. Create one below from its definition JSON, or fork one from Templates.'}
      </EmptyNote>
    </Page>
  )
}

function NewWorkflow() {
  const [name, setName] = useState('')
  const [definition, setDefinition] = useState(STARTER)
  const { error, run } = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    await run(async () => {
      const parsed = parseTyped(definition, 'definition')
      const created = await api('POST', '/v1/workflows', { name: name || undefined, definition: parsed })
      navigate(`/workflows/${created.id}`)
    })
  }
  return (
    <form class="card" onSubmit={submit}>
      <label>
        Name <input name="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Definition (JSON)
        <textarea
          name="definition"
          rows={12}
          value={definition}
          onInput={(e) => setDefinition((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <ErrorBox error={error} />
      <button type="submit">Create</button>
    </form>
  )
}

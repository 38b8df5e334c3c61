/**
 * Connectors: the organization's credentials for the platforms its nodes call. Secret fields
 * are write-only: answered masked, left empty on an edit to keep the stored value.
 */
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { SelectField, TextField } from '../fields.tsx'
import { EmptyNote, ListTable } from '../list.tsx'
import { ErrorBox, Page, confirmed, useAction, useLoad, when } from '../ui.tsx'

interface ConnectorType {
  type: string
  name: string
  description: string
  dataSchema: { properties?: Record<string, any>; required?: string[] }
  secretFields: string[]
}

export function Connectors() {
  const list = useLoad(() => api<{ items: any[] }>('GET', '/v1/connectors?limit=100'), [])
  const types = useLoad(
    () =>
      api<ConnectorType[] | { items: ConnectorType[] }>('GET', '/v1/connector-types').then((d) =>
        Array.isArray(d) ? d : d.items,
      ),
    [],
  )
  const [editing, setEditing] = useState<any | 'new' | null>(null)
  const { error, run } = useAction()
  const remove = async (c: any) => {
    if (!confirmed(`Delete the connector "${c.name}"? Nodes that use it stop working.`)) return
    await run(async () => {
      await api('DELETE', `/v1/connectors/${c.id}`)
      list.reload()
    })
  }
  return (
    <Page
      title="Connectors"
      actions={
        <button type="button" onClick={() => setEditing('new')}>
          New connector
        </button>
      }
    >
      {editing && types.data ? (
        <ConnectorForm
          key={editing === 'new' ? 'new' : editing.id}
          types={types.data}
          connector={editing === 'new' ? null : editing}
          done={() => {
            setEditing(null)
            list.reload()
          }}
          cancel={() => setEditing(null)}
        />
      ) : null}
      <ErrorBox error={error ?? list.error} />
      <ListTable heads={['Name', 'Type', 'Data', 'Updated', '']}>
        {(list.data?.items ?? []).map((c) => (
          <tr data-connector={c.id}>
            <td>{c.name}</td>
            <td>{c.type}</td>
            <td>
              <code class="masked">
                {Object.entries(c.maskedData)
                  .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
                  .join(', ')}
              </code>
            </td>
            <td>{when(c.updatedAt)}</td>
            <td class="actions">
              <button type="button" onClick={() => setEditing(c)}>
                Edit
              </button>
              <button type="button" class="danger" onClick={() => remove(c)}>
                Delete
              </button>
            </td>
          </tr>
        ))}
      </ListTable>
      <EmptyNote items={list.data?.items}>
        No connectors yet. Create one below: choose its type, then fill in its fields.
      </EmptyNote>
    </Page>
  )
}

function ConnectorForm({
  types,
  connector,
  done,
  cancel,
}: {
  types: ConnectorType[]
  connector: any | null
  done: () => void
  cancel: () => void
}) {
  const [type, setType] = useState<string>(connector?.type ?? types[0]?.type ?? '')
  const [name, setName] = useState<string>(connector?.name ?? '')
  const [data, setData] = useState<Record<string, string>>({})
  const { error, run } = useAction()
  const spec = types.find((t) => t.type === type)
  const fields = Object.entries(spec?.dataSchema.properties ?? {})
  const submit = async (event: Event) => {
    event.preventDefault()
    const body: Record<string, unknown> = {}
    for (const [key, schema] of fields) {
      // An edit replaces the data: fields not touched are sent as they are (secrets are kept when left out).
      const kept =
        connector && !spec!.secretFields.includes(key) && connector.maskedData[key] !== undefined
          ? String(connector.maskedData[key])
          : undefined
      const value = data[key] ?? kept
      if (value === undefined || value === '') continue
      body[key] =
        schema.type === 'number' || schema.type === 'integer'
          ? Number(value)
          : schema.type === 'boolean'
            ? value === 'true'
            : value
    }
    await run(async () => {
      if (connector) await api('PUT', `/v1/connectors/${connector.id}`, { name, data: body })
      else await api('POST', '/v1/connectors', { type, name, data: body })
      done()
    })
  }
  return (
    <form class="card connector-form" onSubmit={submit}>
      <SelectField
        label="Type"
        name="type"
        value={type}
        disabled={!!connector}
        onValue={(value) => {
          setType(value)
          setData({})
        }}
      >
        {types.map((t) => (
          <option value={t.type}>{t.name}</option>
        ))}
      </SelectField>
      {spec?.description ? <p class="hint">{spec.description}</p> : null}
      <TextField label="Name" name="connector-name" required value={name} onValue={setName} />
      {fields.map(([key, schema]) => {
        const secret = spec!.secretFields.includes(key)
        const shown = connector && !secret ? String(connector.maskedData[key] ?? '') : undefined
        return (
          <label>
            {key}
            {spec!.dataSchema.required?.includes(key) ? ' *' : ''}
            {schema.description ? <span class="hint"> {schema.description}</span> : null}
            <input
              name={`data-${key}`}
              type={secret ? 'password' : 'text'}
              autocomplete="new-password"
              placeholder={secret && connector ? 'stored; leave empty to keep it' : ''}
              value={data[key] ?? shown ?? ''}
              onInput={(e) => setData((d) => ({ ...d, [key]: (e.target as HTMLInputElement).value }))}
            />
          </label>
        )
      })}
      <ErrorBox error={error} />
      <button type="submit">{connector ? 'Save' : 'Create'}</button>{' '}
      <button type="button" onClick={cancel}>
        Cancel
      </button>
    </form>
  )
}

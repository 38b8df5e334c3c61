/** People of the organization: members and their roles, invitations, and service accounts. */
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { SelectField, TextField } from '../fields.tsx'
import { ListTable } from '../list.tsx'
import { ErrorBox, Page, StatusBadge, confirmed, useAction, useLoad, when } from '../ui.tsx'

const ROLES = ['owner', 'developer', 'viewer']

/** A list the person's role may not read is shown empty, not as an error. */
const forbiddenIsEmpty = (error: unknown) => ((error as { status?: number } | null)?.status === 403 ? null : error)

/** Does an action on the server and reloads the lists; answers the server's answer, or nothing when the person declined or the action failed. */
type Act = (method: string, path: string, body?: unknown, ask?: string) => Promise<any>

export function People() {
  const members = useLoad(() => api<{ items: any[] }>('GET', '/v1/members?limit=100'), [])
  const invitations = useLoad(() => api<{ items: any[] }>('GET', '/v1/invitations?limit=100'), [])
  const accounts = useLoad(() => api<{ items: any[] }>('GET', '/v1/service-accounts?limit=100'), [])
  const { error, run } = useAction()
  const act: Act = async (method, path, body, ask) => {
    if (ask && !confirmed(ask)) return null
    return run(async () => {
      const answer = await api(method, path, body ?? (method === 'POST' ? {} : undefined))
      members.reload()
      invitations.reload()
      accounts.reload()
      return answer
    })
  }
  return (
    <Page title="People">
      <ErrorBox
        error={error ?? members.error ?? forbiddenIsEmpty(invitations.error) ?? forbiddenIsEmpty(accounts.error)}
      />
      <Members items={members.data?.items ?? []} act={act} />
      <Invitations items={invitations.data?.items ?? []} act={act} />
      <ServiceAccounts items={accounts.data?.items ?? []} act={act} />
    </Page>
  )
}

/** The members, each with a role to change and a button to remove them. */
function Members({ items, act }: { items: any[]; act: Act }) {
  return (
    <>
      <h2>Members</h2>
      <ListTable heads={['Email', 'Name', 'Role', 'Since', '']}>
        {items.map((m) => (
          <tr data-member={m.userId}>
            <td>{m.email}</td>
            <td>{m.name}</td>
            <td>
              <select
                aria-label={`role of ${m.email}`}
                value={m.role}
                onChange={(e) =>
                  act('PATCH', `/v1/members/${m.userId}`, { role: (e.target as HTMLSelectElement).value })
                }
              >
                {ROLES.map((r) => (
                  <option>{r}</option>
                ))}
              </select>
            </td>
            <td>{when(m.createdAt)}</td>
            <td>
              <DeleteButton act={act} path={`/v1/members/${m.userId}`} ask={`Remove ${m.email} from the organization?`}>
                Remove
              </DeleteButton>
            </td>
          </tr>
        ))}
      </ListTable>
    </>
  )
}

/** The form to invite someone, the link of the invitation just made, and the invitations waiting. */
function Invitations({ items, act }: { items: any[]; act: Act }) {
  const [invited, setInvited] = useState<string | null>(null)
  const [email, setEmail] = useState('')
  const [role, setRole] = useState('developer')
  return (
    <>
      <h2>Invitations</h2>
      {invited ? (
        <div class="card shown-once" role="status">
          <p>Send this link to the person invited; it is not shown again.</p>
          <pre class="raw-key">{invited}</pre>
          <button type="button" onClick={() => setInvited(null)}>
            Done
          </button>
        </div>
      ) : null}
      <form
        class="card inline"
        onSubmit={async (e) => {
          e.preventDefault()
          const answer = await act('POST', '/v1/members', { email, role })
          if (answer) {
            setEmail('')
            if (answer.token) setInvited(`${window.location.origin}/signin?invitation=${answer.token}`)
          }
        }}
      >
        <TextField label="Email" name="invite-email" type="email" required value={email} onValue={setEmail} />
        <SelectField label="Role" name="invite-role" value={role} onValue={setRole}>
          {ROLES.map((r) => (
            <option>{r}</option>
          ))}
        </SelectField>
        <button type="submit">Invite</button>
      </form>
      <ListTable heads={['Email', 'Role', 'Expires', '']}>
        {items.map((i) => (
          <tr data-invitation={i.id}>
            <td>{i.email}</td>
            <td>{i.role}</td>
            <td>{when(i.expiresAt)}</td>
            <td>
              <DeleteButton act={act} path={`/v1/invitations/${i.id}`} ask={`Revoke the invitation of ${i.email}?`}>
                Revoke
              </DeleteButton>
            </td>
          </tr>
        ))}
      </ListTable>
    </>
  )
}

/** The form to make a service account, and the accounts with buttons to disable, enable or delete them. */
function ServiceAccounts({ items, act }: { items: any[]; act: Act }) {
  const [accountName, setAccountName] = useState('')
  const [permissions, setPermissions] = useState('workflow:read, run:read')
  return (
    <>
      <h2>Service accounts</h2>
      <form
        class="card inline"
        onSubmit={async (e) => {
          e.preventDefault()
          const list = permissions.split(/[\s,]+/).filter(Boolean)
          if (await act('POST', '/v1/service-accounts', { name: accountName, permissions: list })) setAccountName('')
        }}
      >
        <TextField label="Name" name="account-name" required value={accountName} onValue={setAccountName} />
        <TextField
          label="Permissions"
          name="account-permissions"
          size={40}
          value={permissions}
          onValue={setPermissions}
        />
        <button type="submit">Create account</button>
      </form>
      <ListTable heads={['Name', 'Permissions', 'Status', '']}>
        {items.map((a) => (
          <tr data-account={a.id}>
            <td>{a.name}</td>
            <td>
              <code>{a.permissions.join(' ')}</code>
            </td>
            <td>
              <StatusBadge status={a.status} />
            </td>
            <td class="actions">
              {a.status === 'active' ? (
                <button type="button" onClick={() => act('POST', `/v1/service-accounts/${a.id}/disable`)}>
                  Disable
                </button>
              ) : (
                <button type="button" onClick={() => act('POST', `/v1/service-accounts/${a.id}/enable`)}>
                  Enable
                </button>
              )}
              <DeleteButton
                act={act}
                path={`/v1/service-accounts/${a.id}`}
                ask={`Delete the service account "${a.name}" and its keys?`}
              >
                Delete
              </DeleteButton>
            </td>
          </tr>
        ))}
      </ListTable>
      <p class="hint">
        A service account's keys are made on the <a href="/keys">API keys</a> page: choose the account under "For".
      </p>
    </>
  )
}

/** A button that deletes what `path` names once the person answers yes to `ask`. */
function DeleteButton({ act, path, ask, children }: { act: Act; path: string; ask: string; children: string }) {
  return (
    <button type="button" class="danger" onClick={() => act('DELETE', path, undefined, ask)}>
      {children}
    </button>
  )
}

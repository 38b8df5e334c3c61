/** The console: sign in, then workflows, runs and keys over the API with the session cookie. */
import { render } from 'preact'
import { useState } from 'preact/hooks'
import { api, chooseOrganization, loadSession, moderator, organization, session } from './api.ts'
import { location, match, navigate } from './router.ts'
import { ErrorBox, useAction } from './ui.tsx'
import { Keys } from './pages/keys.tsx'
import { RunPage } from './pages/run.tsx'
import { Runs } from './pages/runs.tsx'
import { WorkflowPage } from './pages/workflow.tsx'
import { Workflows } from './pages/workflows.tsx'
import { TemplatePage, Templates } from './pages/templates.tsx'
import { Events, Hooks } from './pages/hooks.tsx'
import { Connectors } from './pages/connectors.tsx'
import { People } from './pages/people.tsx'
import { SsoButtons, SsoLinkNote } from './pages/sign-in-sso.tsx'
import { Agents, Moderation, Settings } from './pages/more.tsx'
import { X402 } from './pages/x402.tsx'
import { Audit } from './pages/audit.tsx'

/** Where to go after signing in: a path of this origin only. */
function safeNext(next: string | null): string {
  if (!next) return '/workflows'
  const url = new URL(next, window.location.origin)
  return url.origin === window.location.origin && !url.pathname.startsWith('/v1/')
    ? url.pathname + url.search
    : '/workflows'
}

/**
 * Sign-in, and joining by an invitation link: a new person chooses a name and a password; a
 * person with an account signs in as the invited email (or already is) and then accepts.
 */
function SignIn() {
  const invitation = location.value.query.get('invitation')
  // Back from an identity provider whose email has an account here: its password links it once.
  const ssoLink = location.value.query.get('ssoLink')
  const signedIn = session.value
  const [hasAccount, setHasAccount] = useState(false)
  const [email, setEmail] = useState('')
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const { error, run } = useAction()
  const newPerson = invitation !== null && !signedIn && !hasAccount
  const submit = async (event: Event) => {
    event.preventDefault()
    await run(async () => {
      if (ssoLink) await api('POST', '/v1/auth/oidc/link', { password })
      else if (newPerson)
        await api('POST', '/v1/auth/accept-invitation', { token: invitation, name: name || undefined, password })
      else {
        if (!signedIn) {
          await api('POST', '/v1/auth/login', { email, password })
          await loadSession()
        }
        if (invitation) await api('POST', '/v1/auth/accept-invitation', { token: invitation })
      }
      await loadSession()
      navigate(safeNext(location.value.query.get('next')), true)
    })
  }
  const signOut = async () => {
    await api('POST', '/v1/auth/logout', {}).catch(() => {})
    session.value = null
  }
  return (
    <form class="card signin" onSubmit={submit}>
      <h1>Automaton</h1>
      {ssoLink && !signedIn ? <SsoLinkNote email={ssoLink} /> : null}
      {invitation && signedIn ? (
        <p class="hint">
          You were invited. Join as {signedIn.user.email}, or{' '}
          <button type="button" class="link" onClick={signOut}>
            sign out
          </button>{' '}
          to join as someone else.
        </p>
      ) : null}
      {newPerson ? (
        <>
          <p class="hint">
            You were invited. Choose your name and password, or{' '}
            <button type="button" class="link" onClick={() => setHasAccount(true)}>
              sign in
            </button>{' '}
            if you already have an account.
          </p>
          <label>
            Name{' '}
            <input
              name="name"
              autocomplete="name"
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </label>
        </>
      ) : null}
      {invitation && hasAccount && !signedIn ? (
        <p class="hint">Sign in as the invited person; the invitation is accepted then.</p>
      ) : null}
      {!newPerson && !signedIn && !ssoLink ? (
        <label>
          Email{' '}
          <input
            name="email"
            type="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
          />
        </label>
      ) : null}
      {!signedIn ? (
        <label>
          Password{' '}
          <input
            name="password"
            type="password"
            autocomplete={newPerson ? 'new-password' : 'current-password'}
            required
            value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
          />
        </label>
      ) : null}
      <ErrorBox error={error} />
      <button type="submit">{invitation ? 'Join' : ssoLink ? 'Link and sign in' : 'Sign in'}</button>
      {!invitation && !signedIn && !ssoLink ? <SsoButtons next={safeNext(location.value.query.get('next'))} /> : null}
    </form>
  )
}

function Shell() {
  const s = session.value
  const path = location.value.path
  if (s === undefined) return <p class="loading">Loading…</p>
  if (s === null) {
    if (path !== '/signin')
      queueMicrotask(() => navigate(`/signin?next=${encodeURIComponent(path + window.location.search)}`, true))
    return <SignIn />
  }
  // An invitation link opened while signed in: join as this account.
  if (path === '/signin' && location.value.query.get('invitation')) return <SignIn />
  if (path === '/' || path === '/signin') queueMicrotask(() => navigate('/workflows', true))
  let page
  let params: Record<string, string> | null
  if ((params = match('/workflows/:id', path))) page = <WorkflowPage id={params.id} />
  else if ((params = match('/runs/:id', path))) page = <RunPage id={params.id} />
  else if ((params = match('/templates/:id', path))) page = <TemplatePage id={params.id} />
  else if (path === '/templates') page = <Templates />
  else if (path === '/runs') page = <Runs />
  else if (path === '/keys') page = <Keys />
  else if (path === '/hooks') page = <Hooks />
  else if (path === '/events') page = <Events />
  else if (path === '/connectors') page = <Connectors />
  else if (path === '/people') page = <People />
  else if (path === '/settings') page = <Settings />
  else if (path === '/moderation') page = <Moderation />
  else if (path === '/agents') page = <Agents />
  else if (path === '/x402') page = <X402 />
  else if (path === '/audit') page = <Audit />
  else page = <Workflows />
  const signOut = async () => {
    await api('POST', '/v1/auth/logout', {}).catch(() => {})
    session.value = null
  }
  const section = path.split('/')[1]
  return (
    <>
      <nav class="top">
        <a class="brand" href="/workflows">
          Automaton
        </a>
        <a href="/workflows" class={section === 'workflows' ? 'on' : ''}>
          Workflows
        </a>
        <a href="/runs" class={section === 'runs' ? 'on' : ''}>
          Runs
        </a>
        <a href="/templates" class={section === 'templates' ? 'on' : ''}>
          Templates
        </a>
        <a href="/hooks" class={section === 'hooks' ? 'on' : ''}>
          Hooks
        </a>
        <a href="/events" class={section === 'events' ? 'on' : ''}>
          Events
        </a>
        <a href="/connectors" class={section === 'connectors' ? 'on' : ''}>
          Connectors
        </a>
        <a href="/people" class={section === 'people' ? 'on' : ''}>
          People
        </a>
        <a href="/keys" class={section === 'keys' ? 'on' : ''}>
          API keys
        </a>
        <a href="/audit" class={section === 'audit' ? 'on' : ''}>
          Audit
        </a>
        <a href="/agents" class={section === 'agents' ? 'on' : ''}>
          Agents
        </a>
        <a href="/x402" class={section === 'x402' ? 'on' : ''}>
          x402
        </a>
        {moderator.value ? (
          <a href="/moderation" class={section === 'moderation' ? 'on' : ''}>
            Moderation
          </a>
        ) : null}
        <span class="grow" />
        {s.user.memberships.length > 1 ? (
          <select
            aria-label="organization"
            value={organization.value ?? ''}
            onChange={(e) => {
              chooseOrganization((e.target as HTMLSelectElement).value)
              navigate('/workflows')
            }}
          >
            {s.user.memberships.map((m) => (
              <option value={m.organizationId}>{m.organizationName}</option>
            ))}
          </select>
        ) : (
          <span class="org">{s.user.memberships[0]?.organizationName}</span>
        )}
        <a class="user" href="/settings">
          {s.user.email}
        </a>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </nav>
      <main key={`${organization.value}`}>{page}</main>
    </>
  )
}

function App() {
  return <Shell />
}

window.addEventListener('unhandledrejection', (event) => {
  render(<ErrorBox error={event.reason} />, document.body.appendChild(document.createElement('div')))
})
void loadSession()
render(<App />, document.getElementById('app')!)

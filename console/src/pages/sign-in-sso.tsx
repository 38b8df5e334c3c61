/**
 * Single sign-on on the sign-in page: a "Sign in with <provider>" button per identity provider
 * (each a link to the server's redirect), and the note shown when the provider's email belongs to
 * an account here that its password must link once.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, expectSession } from '../api.ts'

interface Provider {
  name: string
  displayName: string
}

/** The providers' buttons; nothing when none is configured. */
export function SsoButtons({ next }: { next: string }) {
  const [providers, setProviders] = useState<Provider[]>([])
  useEffect(() => {
    api<{ items: Provider[] }>('GET', '/v1/auth/oidc/providers')
      .then((answer) => setProviders(answer.items))
      .catch(() => setProviders([]))
  }, [])
  if (providers.length === 0) return null
  return (
    <div class="sso">
      {providers.map((p) => (
        <a
          key={p.name}
          class="button"
          href={`/v1/auth/oidc/login?provider=${encodeURIComponent(p.name)}&returnTo=${encodeURIComponent(next)}`}
          // The provider sends the browser back signed in: the console asks for the session then.
          onClick={expectSession}
        >
          Sign in with {p.displayName}
        </a>
      ))}
    </div>
  )
}

/** The link of a provider's identity to an existing account: what the person is asked, and why. */
export function SsoLinkNote({ email }: { email: string }) {
  return (
    <p class="hint">
      An account with the email {email} exists here. Give its password once to sign in with single sign-on from now on.
    </p>
  )
}

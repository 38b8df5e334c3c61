/**
 * A test system whose people sign in with single sign-on through the test identity provider, for
 * the OpenID Connect tests: the server's public address, the provider's way back to it, and the
 * settings that name the provider and its client.
 */
import type { Clock } from '../../core/ports/clock.ts'
import type { TestIdentityProvider } from './identity-provider.ts'
import { openTestSystem, type TestSystem } from './system.ts'

export const PUBLIC_URL = 'https://automaton.example.test'
/** Where the provider sends a person back to after signing in. */
export const CALLBACK = `${PUBLIC_URL}/v1/auth/oidc/callback`

/**
 * Opens a test system on `clock` that signs people in through `provider` (asking for their groups,
 * sessions idle for up to a day); `settings` add to these, mapping the groups to roles at least.
 */
export function openSignOnSystem(
  kind: 'sqlite' | 'postgres',
  provider: TestIdentityProvider,
  clock: Clock,
  settings: Record<string, string>,
): Promise<TestSystem> {
  return openTestSystem(
    kind,
    {
      AUTOMATON_PUBLIC_URL: PUBLIC_URL,
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      AUTOMATON_OIDC_ISSUER: provider.issuer,
      AUTOMATON_OIDC_CLIENT_ID: provider.clientId,
      AUTOMATON_OIDC_CLIENT_SECRET: provider.clientSecret,
      AUTOMATON_OIDC_SCOPES: 'groups',
      AUTOMATON_SESSION_IDLE: '1d',
      ...settings,
    },
    { clock },
  )
}

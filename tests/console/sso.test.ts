/**
 * Single sign-on in a real browser (Debian's chromium, puppeteer-core) against a server process
 * and a real OpenID provider (oidc-provider with a test user store): the sign-in page offers the
 * provider's button, the person lands signed in where they were going, in the organization and
 * role their group gives; removing the group ends the session at the next refresh; an
 * organization that requires single sign-on refuses the password form; an existing account is
 * linked only with its password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import type { Page } from 'puppeteer-core'
import { CHROMIUM, openSignedInConsole, PASSWORD, type SignedInConsole } from '../helpers/console.ts'
import { type TestIdentityProvider, startIdentityProvider } from '../helpers/identity-provider.ts'
import { runCli } from '../helpers/process.ts'
import { warnSkipped } from '../helpers/services.ts'

const KEY = 'svcsk_sso_console_bootstrap_key_0123456789abcdef'
const STEP_MS = 90_000

/** A port nothing listens on now, for a server whose redirect URI the provider must know first. */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

if (!CHROMIUM) warnSkipped('the single sign-on console tests', 'AUTOMATON_TEST_CHROMIUM (or /usr/bin/chromium)')
else
  describe('single sign-on in the console (chromium)', () => {
    let provider: TestIdentityProvider
    let console: SignedInConsole
    let page: Page
    let env: Record<string, string>

    beforeAll(async () => {
      const port = await freePort()
      provider = await startIdentityProvider(`http://127.0.0.1:${port}/v1/auth/oidc/callback`)
      env = {
        PORT: String(port),
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1',
        AUTOMATON_OIDC_ISSUER: provider.issuer,
        AUTOMATON_OIDC_CLIENT_ID: provider.clientId,
        AUTOMATON_OIDC_CLIENT_SECRET: provider.clientSecret,
        AUTOMATON_OIDC_SCOPES: 'groups',
        AUTOMATON_OIDC_NAME: 'Corp',
        AUTOMATON_OIDC_GROUP_ROLES: 'automation-ops=default:developer',
      }
      // The harness's person signs in with a password; the people of these tests use fresh browsers.
      console = await openSignedInConsole({
        key: KEY,
        env,
        otherOrigins: [provider.issuer],
        // The password form refused by an SSO-required organization answers 403.
        expectedStatuses: /status of 4(00|01|03|04|12)\b/,
        timeoutMs: 45_000,
      })
      env = { ...env, AUTOMATON_DATA_DIR: console.dataDir, AUTOMATON_BOOTSTRAP_KEY: KEY }
      page = await console.newPage()
    }, 90_000)

    afterAll(async () => {
      await console?.close()
      await provider?.stop()
    })

    const text = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '')

    it(
      "signs in with the provider's button and lands where the person was going, with the role their group gives",
      async () => {
        provider.accounts.set('ann', { email: 'ann@corp.test', emailVerified: true, groups: ['automation-ops'] })
        provider.signsInNext('ann')
        await page.goto(`${console.server.url}/runs`)
        await page.waitForSelector('.sso a')
        expect(await text('.sso a')).toBe('Sign in with Corp')
        await page.click('.sso a')
        await page.waitForSelector('nav.top .user')
        expect(page.url()).toBe(`${console.server.url}/runs`)
        expect(await text('nav.top .user')).toBe('ann@corp.test')
        const role = await page.evaluate(async () => {
          const answer = await (await fetch('/v1/auth/session')).json()
          return answer.data.user.memberships.map((m: { role: string }) => m.role)
        })
        expect(role).toEqual(['developer'])
      },
      STEP_MS,
    )

    it(
      'sends the person back to sign in once the provider removed their group',
      async () => {
        provider.accounts.set('ann', { email: 'ann@corp.test', emailVerified: true, groups: [] })
        await page.reload()
        await page.waitForSelector('form.signin')
        expect(page.url()).toContain('/signin')
      },
      STEP_MS,
    )

    it(
      'refuses the password form to a member of an organization that requires single sign-on',
      async () => {
        const passwordFile = join(console.dataDir, 'bob-password')
        writeFileSync(passwordFile, `${PASSWORD}\n`)
        const created = await runCli(
          ['users', 'create', '--email', 'bob@corp.test', '--org', 'default', '--password-file', passwordFile],
          env,
        )
        expect(created.code).toBe(0)
        expect((await runCli(['oidc', 'require-sso', '--org', 'default'], env)).code).toBe(0)
        await page.goto(`${console.server.url}/signin`)
        await page.waitForSelector('input[name=email]')
        await page.type('input[name=email]', 'bob@corp.test')
        await page.type('input[name=password]', PASSWORD)
        await page.click('button[type=submit]')
        await page.waitForSelector('.error')
        expect(await text('.error')).toContain('requires single sign-on')
      },
      STEP_MS,
    )

    it(
      "links the provider's sign-in to an existing account once its password is given, then lands signed in",
      async () => {
        provider.accounts.set('bob', { email: 'bob@corp.test', emailVerified: true, groups: ['automation-ops'] })
        provider.signsInNext('bob')
        // Another browser: the provider's own session there is still Ann's.
        page = await console.newPage()
        await page.goto(`${console.server.url}/signin`)
        await page.waitForSelector('.sso a')
        await page.click('.sso a')
        await page.waitForFunction(() => new URLSearchParams(location.search).has('ssoLink'))
        // The URL changes before the page has drawn the form that asks for the password.
        await page.waitForSelector('form.signin .hint')
        expect(await text('form.signin .hint')).toContain('bob@corp.test')
        expect(await page.$('input[name=email]')).toBeNull()
        await page.type('input[name=password]', PASSWORD)
        await page.click('button[type=submit]')
        await page.waitForSelector('nav.top .user')
        expect(new URL(page.url()).pathname).toBe('/workflows')
        expect(await text('nav.top .user')).toBe('bob@corp.test')
      },
      STEP_MS,
    )

    it('met no page error and reached no other site than the provider', () => {
      expect(console.problems).toEqual([])
    })
  })

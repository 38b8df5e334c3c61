/**
 * The HTTP server contract: what every server adapter promises (core/ports/http-server.ts), as a
 * client sees it. Run against Bun.serve in this process and Deno.serve in a Deno process by
 * http-server.test.ts, each serving the same app (fixtures/http-server-app.ts). Nothing here is
 * timed: a held request is released by the test, and a stop is seen by what a client gets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import type { TlsPem } from '../../core/ports/http-server.ts'
import { makeCertificate, pemOf, servedName } from '../helpers/certificates.ts'
import { until } from '../helpers/process.ts'
import { tempDir } from '../helpers/tmp.ts'

/** The contract app served by one adapter, and the adapter's controls. */
export interface ServedApp {
  readonly port: number
  readonly secure: boolean
  /** As HttpServer.reloadTls: resolves once new connections get `tls`, rejects (keeping the old one) otherwise. */
  reloadTls(tls: TlsPem): Promise<void>
  /** As HttpServer.stop. */
  stop(graceful?: boolean): Promise<void>
  /** Lets the request held at `/hold/<name>` answer. */
  release(name: string): Promise<void>
}

export interface HttpServerFactory {
  name: string
  serve(options: { tls?: TlsPem }): Promise<ServedApp>
  /**
   * Promises of the contract an adapter is known to break, each with the reason: the test is
   * skipped, loudly, until the adapter is mended.
   */
  knownDefects?: { readonly resetsConnectionsDuringReload?: string }
}

/** A test an adapter is known to fail: skipped with its reason in the name, and said aloud. */
function itKnownToFail(factory: HttpServerFactory, title: string, reason: string) {
  console.warn(`\n!!!!! SKIPPED: ${factory.name}: "${title}" — ${reason} !!!!!\n`)
  it.skip(`${title} (skipped: ${reason})`, () => {})
}

/** The certificate a connection that the server takes is shown (one it resets is tried again). */
async function acceptedName(port: number): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await servedName(port)
    } catch (error) {
      if ((error as { code?: string }).code !== 'ECONNRESET' || attempt === 5) throw error
    }
  }
}

/** A request on a connection of its own (no pooled one), so that it sees what a new client sees. */
const fresh = (url: string, init: RequestInit = {}) => fetch(url, { ...init, keepalive: false })

/** Resolves once the request held at `/hold/<name>` has reached the app. */
const arrived = (base: string, name: string) =>
  until(`the request ${name} to reach the app`, async () =>
    ((await (await fresh(`${base}/held`)).json()) as string[]).includes(name),
  )

export function describeHttpServerContract(factory: HttpServerFactory) {
  describe(`HTTP server contract: ${factory.name}`, () => {
    describe('over HTTP', () => {
      let served: ServedApp
      let base: string
      beforeAll(async () => {
        served = await factory.serve({})
        base = `http://127.0.0.1:${served.port}`
      })
      afterAll(() => served?.stop(false).catch(() => {}))

      it('listens on a port of its own when given 0, and says which, as plain HTTP', async () => {
        expect(served.port).toBeGreaterThan(0)
        expect(served.secure).toBe(false)
        expect((await fresh(`${base}/echo`)).status).toBe(200)
      })

      it("hands the app the method, path, query, headers and body, and the peer's address", async () => {
        const r = await fresh(`${base}/echo?a=1&b=%20two`, {
          method: 'POST',
          headers: { 'x-contract': 'yes' },
          body: 'hello, server',
        })
        expect(await r.json()).toEqual({
          method: 'POST',
          path: '/echo',
          query: '?a=1&b=%20two',
          header: 'yes',
          body: 'hello, server',
          peer: '127.0.0.1',
        })
      })

      it("sends the app's status, headers and body as they are, a streamed body too", async () => {
        const teapot = await fresh(`${base}/teapot`)
        expect({
          status: teapot.status,
          answer: teapot.headers.get('x-answer'),
          cookie: teapot.headers.get('set-cookie'),
          body: await teapot.text(),
        }).toEqual({ status: 418, answer: 'yes', cookie: 'a=1', body: 'short and stout' })
        expect(await (await fresh(`${base}/stream`)).text()).toBe('one two three')
        expect((await fresh(`${base}/nowhere`)).status).toBe(404)
      })

      it('answers other requests while one waits', async () => {
        const held = fresh(`${base}/hold/busy`)
        await arrived(base, 'busy')
        expect((await fresh(`${base}/echo`)).status).toBe(200)
        await served.release('busy')
        expect(await (await held).text()).toBe('released busy')
      })

      it('refuses to reload a certificate when it serves plain HTTP', async () => {
        await expect(served.reloadTls({ cert: 'x', key: 'y' })).rejects.toThrow()
        expect((await fresh(`${base}/echo`)).status).toBe(200)
      })
    })

    describe('stopping', () => {
      it('lets a request in flight finish on a graceful stop, and takes no new connection', async () => {
        const served = await factory.serve({})
        const base = `http://127.0.0.1:${served.port}`
        const held = fresh(`${base}/hold/last`)
        await arrived(base, 'last')
        const stopping = served.stop(true)
        await until('the server to refuse new connections', async () =>
          fresh(`${base}/echo`).then(
            () => false,
            () => true,
          ),
        )
        await served.release('last')
        expect(await (await held).text()).toBe('released last')
        await stopping
        await expect(fresh(`${base}/echo`)).rejects.toThrow()
      })
    })

    describe('over HTTPS', () => {
      const dir = tempDir()
      let first: { cert: string; key: string }
      let second: { cert: string; key: string }
      let served: ServedApp
      /** A request that trusts only `files`' certificate: it succeeds only if the server shows that one. */
      const trusting = (files: { cert: string }) =>
        fetch(`https://localhost:${served.port}/echo`, {
          keepalive: false,
          tls: { ca: readFileSync(files.cert, 'utf8') },
        } as RequestInit).then((r) => r.status)

      beforeAll(async () => {
        first = await makeCertificate(dir.path, 'first')
        second = await makeCertificate(dir.path, 'second')
        served = await factory.serve({ tls: pemOf(first) })
      })
      afterAll(async () => {
        await served?.stop(false).catch(() => {})
        dir.remove()
      })

      it('answers HTTPS with the certificate it was given, and says so', async () => {
        expect(served.secure).toBe(true)
        expect(await servedName(served.port)).toBe('first')
        expect(await trusting(first)).toBe(200)
        await expect(trusting(second)).rejects.toThrow()
      })

      it('serves a new certificate to new connections once reloaded, on the same port', async () => {
        await served.reloadTls(pemOf(second))
        expect(await acceptedName(served.port)).toBe('second')
        expect(await trusting(second)).toBe(200)
        await expect(trusting(first)).rejects.toThrow()
      })

      const resets = factory.knownDefects?.resetsConnectionsDuringReload
      const refusesNone = 'refuses no new connection while it changes certificates'
      if (resets) itKnownToFail(factory, refusesNone, resets)
      else {
        it(refusesNone, async () => {
          for (const pem of [first, second]) {
            await served.reloadTls(pemOf(pem))
            const names = []
            for (let i = 0; i < 10; i++) names.push(await servedName(served.port))
            expect(names).toEqual(names.map(() => (pem === first ? 'first' : 'second')))
          }
        })
      }

      it('refuses a certificate it cannot use, and keeps serving the one it has', async () => {
        await expect(served.reloadTls({ cert: 'not a certificate', key: 'not a key' })).rejects.toThrow()
        expect(await acceptedName(served.port)).toBe('second')
        expect(await trusting(second)).toBe(200)
      })
    })
  })
}

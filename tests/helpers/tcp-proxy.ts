/**
 * A TCP proxy a test can cut: put it between the service and a server it depends on (Postgres,
 * NATS) to make the server go away and come back without touching the real one, which other
 * suites share.
 *
 *   const proxy = await startTcpProxy('postgres://postgres@127.0.0.1:5432/db')
 *   const url = proxy.via('postgres://postgres@127.0.0.1:5432/db')   // the same URL, through the proxy
 *   await proxy.cut()        // open connections reset, new ones refused: the server stopped
 *   await proxy.restore()    // new connections reach the server again
 *   await proxy.close()
 */
import net from 'node:net'

/**
 * How the server is gone: `refuse` (the default) closes the listening socket, so connection
 * attempts are refused as by a stopped server; `reset` accepts each and resets it at once (and
 * counts it); `blackhole` accepts each and never answers, as a host that went off the network.
 */
export type CutMode = 'refuse' | 'reset' | 'blackhole'

export interface TcpProxy {
  readonly host: string
  readonly port: number
  /** The URL with its host and port replaced by the proxy's (any scheme: postgres://, nats://). */
  via(url: string): string
  /** The server goes away: every open connection is reset, and new ones fail as `mode` says. */
  cut(mode?: CutMode): Promise<void>
  /** The server is back: new connections reach it again. */
  restore(): Promise<void>
  /** Connections that reached the proxy since it started (while cut too, except refused ones). */
  readonly connections: number
  /** Connections the proxy accepted while cut (`reset` and `blackhole`). */
  readonly refused: number
  /** Connections passed through to the server and open now. */
  readonly open: number
  close(): Promise<void>
}

export async function startTcpProxy(target: string | { host: string; port: number }): Promise<TcpProxy> {
  const to = typeof target === 'string' ? hostAndPort(target) : target
  const host = '127.0.0.1'
  const live = new Set<net.Socket>()
  const held = new Set<net.Socket>()
  let mode: CutMode | null = null
  let connections = 0
  let refused = 0
  let port = 0
  let server: net.Server | null = null

  const reset = (socket: net.Socket) => {
    const s = socket as net.Socket & { resetAndDestroy?: () => void }
    if (s.resetAndDestroy) s.resetAndDestroy()
    else s.destroy()
  }

  function accept(client: net.Socket) {
    connections++
    client.on('error', () => {})
    if (mode === 'reset') {
      refused++
      return reset(client)
    }
    if (mode === 'blackhole') {
      refused++
      held.add(client)
      client.on('close', () => held.delete(client))
      return
    }
    const upstream = net.connect(to.port, to.host)
    upstream.on('error', () => reset(client))
    client.on('error', () => reset(upstream))
    client.on('close', () => {
      live.delete(client)
      upstream.destroy()
    })
    upstream.on('close', () => client.destroy())
    live.add(client)
    client.pipe(upstream)
    upstream.pipe(client)
  }

  async function listen(): Promise<void> {
    const s = net.createServer(accept)
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject)
      s.listen(port, host, () => resolve())
    })
    port = (s.address() as net.AddressInfo).port
    server = s
  }

  async function unlisten(): Promise<void> {
    const s = server
    server = null
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()))
  }

  await listen()
  return {
    host,
    get port() {
      return port
    },
    via(url) {
      const u = new URL(url)
      u.hostname = host
      u.port = String(port)
      return u.toString()
    },
    async cut(how = 'refuse') {
      mode = how
      for (const socket of [...live]) reset(socket)
      live.clear()
      if (how === 'refuse') {
        // Closing waits for accepted connections to end: they were reset above.
        await unlisten()
      }
    },
    async restore() {
      mode = null
      for (const socket of [...held]) reset(socket)
      held.clear()
      if (!server) await listen()
    },
    get connections() {
      return connections
    },
    get refused() {
      return refused
    },
    get open() {
      return live.size
    },
    async close() {
      for (const socket of [...live, ...held]) reset(socket)
      live.clear()
      held.clear()
      await unlisten()
    },
  }
}

function hostAndPort(url: string): { host: string; port: number } {
  const u = new URL(url)
  const defaults: Record<string, number> = { 'postgres:': 5432, 'postgresql:': 5432, 'nats:': 4222 }
  return { host: u.hostname || '127.0.0.1', port: Number(u.port) || defaults[u.protocol] || 0 }
}

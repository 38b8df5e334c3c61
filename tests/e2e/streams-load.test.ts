/**
 * Streams under load, against a real server process: 1,000 idle subscribers cost little and
 * stay connected; a subscriber that never reads is disconnected instead of being buffered for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { api, type ServerProcess, startServer, until } from '../helpers/process.ts'
import { tempDir } from '../helpers/tmp.ts'

const KEY = 'svcsk_streams_load_bootstrap_key_0123456789ab'
const TCP_STATES: Record<string, string> = {
  '01': 'ESTABLISHED',
  '06': 'TIME_WAIT',
  '07': 'CLOSE',
  '08': 'CLOSE_WAIT',
  '0A': 'LISTEN',
}

/** The states of a process's TCP sockets, from /proc (its socket inodes matched in /proc/net/tcp). */
function tcpStates(pid: number): string[] {
  const inodes = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /socket:\[(\d+)\]/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (m) inodes.add(m[1])
    } catch {}
  }
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length > 9 && inodes.has(f[9]))
    .map((f) => TCP_STATES[f[3]] ?? f[3])
}

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

describe('streams under load', () => {
  const dir = tempDir()
  let server: ServerProcess
  beforeAll(async () => {
    server = await startServer({
      env: {
        AUTOMATON_DATA_DIR: dir.path,
        AUTOMATON_BOOTSTRAP_KEY: KEY,
        AUTOMATON_SSE_BUFFER_BYTES: '262144',
        AUTOMATON_SQLITE_SYNCHRONOUS: 'normal',
      },
    })
  })
  afterAll(async () => {
    await server?.stop('SIGKILL')
    dir.remove()
  })

  it('holds 1,000 idle subscribers cheaply and disconnects one that never reads', async () => {
    const created = await api(server.url, 'POST', '/v1/workflows', KEY, {
      definition: {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'manual', children: ['loop'] },
          loop: { type: 'for-each', payload: { array: '{{$trigger.body.items}}' }, loopBody: ['echo'] },
          echo: { type: 'log', payload: { message: '{{$trigger.body.blob}} {{$item}}' } },
        },
      },
    })
    const workflowId = created.body.data.id
    const before = rssMb(server.pid)

    // Raw sockets: fetch keeps at most a few hundred connections per host open at once.
    // `ended`: the subscribers that got the run's end (the frame may be split between two reads).
    const received = { bytes: 0, ok: 0, closed: 0, ended: 0 }
    const idle = await Promise.all(
      Array.from({ length: 1000 }, () => {
        let tail = ''
        let ended = false
        return Bun.connect({
          hostname: '127.0.0.1',
          port: server.port,
          socket: {
            open(socket) {
              socket.write(
                `GET /v1/activity/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
              )
            },
            data(_socket, data) {
              if (received.bytes === 0 || data.toString().startsWith('HTTP/1.1 200'))
                received.ok += data.toString().startsWith('HTTP/1.1 200') ? 1 : 0
              received.bytes += data.byteLength
              if (ended) return
              const text = tail + data.toString()
              tail = text.slice(-40)
              if (text.includes('event: run.succeeded')) {
                ended = true
                received.ended++
              }
            },
            close() {
              received.closed++
            },
          },
        })
      }),
    )
    await until('every subscriber to be answered', async () => received.ok === 1000 || undefined)
    expect(received.ok).toBe(1000)
    const withSubscribers = rssMb(server.pid)
    expect(withSubscribers - before).toBeLessThan(150)

    // A client that asks for a run's execution detail and reads one byte a second.
    const runId = 'run_01SLOWREADER00000000000000'
    const slow = Bun.spawn(
      [
        'curl',
        '-sN',
        '--limit-rate',
        '1',
        '-H',
        `authorization: Bearer ${KEY}`,
        `${server.url}/v1/executions/${runId}/stream`,
      ],
      { stdout: 'pipe', stderr: 'pipe' },
    )
    await until('the slow client to connect', async () => tcpStates(slow.pid).includes('ESTABLISHED') || undefined)
    const blob = 'x'.repeat(60_000)
    const started = await api(server.url, 'POST', `/v1/workflows/${workflowId}/run`, KEY, {
      runId,
      payload: { blob, items: Array.from({ length: 100 }, (_, i) => i) },
    })
    expect(started.status).toBe(200)
    await until(
      'the run to succeed',
      async () =>
        (await api(server.url, 'GET', `/v1/runs/${runId}?summary=true`, KEY)).body.data.status === 'success' ||
        undefined,
    )
    // The slow client is dropped: its connection is no longer established, long before it could
    // have read the ~20 MB of its stream at a byte a second.
    await until(
      'the slow client to be dropped',
      async () => !tcpStates(slow.pid).includes('ESTABLISHED') || undefined,
      15_000,
    )
    slow.kill('SIGKILL')

    // Every idle subscriber got the run's end: the server has sent all it had to send.
    await until("every idle subscriber to get the run's end", async () => received.ended === 1000 || undefined)
    const after = rssMb(server.pid)
    expect(after - withSubscribers).toBeLessThan(200)
    // The idle subscribers are all still connected and got the run's activity.
    expect(received.closed).toBe(0)
    expect(received.bytes).toBeGreaterThan(1000 * 1000)
    for (const socket of idle) socket.end()
  }, 90_000)
})

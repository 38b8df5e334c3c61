/**
 * The load a fault scenario runs under, sent the way the docs tell a client to: a steady rate of
 * runs of three workflows (pure nodes only, a delay, an HTTP request), half of them started by
 * `POST /v1/workflows/{id}/run` with a run id the client chose, half by webhook with an
 * Idempotency-Key, each resent with the same id until it is answered 2xx (honouring Retry-After,
 * backing off: resendDelayMs). Every attempt is recorded with its answer.
 *
 * The HTTP-request nodes call a receiver that counts calls per run and node: a node executed
 * twice shows up there, whatever the journal says.
 */
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { KEY, publish } from './cluster.ts'

export type Kind = 'pure' | 'delayed' | 'http'
export type Channel = 'api' | 'webhook'
export const KINDS: Kind[] = ['pure', 'delayed', 'http']
export const CHANNELS: Channel[] = ['api', 'webhook']

export interface Attempt {
  sentAt: number
  ms: number
  /** The HTTP status, or what happened instead of an answer. */
  status: number | 'network-error' | 'timeout'
  retryAfter: string | null
  /** The answer carried the error body (`code` equal to the status, `message`, `requestId`). */
  errorBody: boolean
}

export interface SentRun {
  n: number
  kind: Kind
  channel: Channel
  workflowId: string
  /** The client's run id (API) or Idempotency-Key (webhook). */
  id: string
  firstSentAt: number
  attempts: Attempt[]
  /** When the first 2xx answer naming a run arrived. */
  acceptedAt: number | null
  /** Every run id a 2xx answer named: exactly one, or the resends made a second run. */
  runIds: Set<string>
  outcome: 'pending' | 'accepted' | 'skipped' | 'gave-up'
  /** Why a 2xx webhook answer started nothing (`paused`…), when it did. */
  skipReason?: string
}

export interface FaultWorkflows {
  /** Per kind and channel, the workflow's id and webhook secret. */
  byKey: Map<string, { id: string; triggerSecret: string }>
  ids(): string[]
}

/** The receiver's path for a node's call; {{$run.id}} makes it one per run. */
const callUrl = (receiver: Receiver, node: string) => `${receiver.url}/call/{{$run.id}}/${node}`

/** Publishes the six workflows (three kinds, one per channel so their runs are told apart). */
export async function publishFaultWorkflows(base: string, receiver: Receiver, delayMs = 1000): Promise<FaultWorkflows> {
  const nodes: Record<Kind, Record<string, unknown>> = {
    pure: {
      root: { type: 'manual', children: ['a'] },
      a: { type: 'set-variable', payload: { name: 'n', value: '{{$trigger.body.n}}' }, children: ['b'] },
      b: { type: 'log', payload: { message: 'pure {{$trigger.body.n}}' } },
    },
    delayed: {
      root: { type: 'manual', children: ['pause'] },
      pause: { type: 'delay', payload: { delayMs }, children: ['after'] },
      after: { type: 'http-request', payload: { url: callUrl(receiver, 'after') }, children: ['done'] },
      done: { type: 'log', payload: { message: 'delayed {{$trigger.body.n}}' } },
    },
    http: {
      root: { type: 'manual', children: ['call'] },
      call: { type: 'http-request', payload: { url: callUrl(receiver, 'call') }, children: ['done'] },
      done: { type: 'log', payload: { message: 'http {{$trigger.body.n}}' } },
    },
  }
  const byKey = new Map<string, { id: string; triggerSecret: string }>()
  for (const kind of KINDS)
    for (const channel of CHANNELS)
      byKey.set(`${kind}/${channel}`, await publish(base, `fault ${kind} ${channel}`, nodes[kind]))
  return { byKey, ids: () => [...byKey.values()].map((w) => w.id) }
}

/** Calls per run and node, with the idempotency keys they carried. */
export interface CallCounter {
  receiver: Receiver
  calls(): Map<string, { count: number; keys: Set<string> }>
  stop(): Promise<void>
}

/** A receiver that answers every call after `delayMs` (so that calls are in flight when a fault strikes). */
export function startCallCounter(delayMs = 50): CallCounter {
  const receiver = startReceiver()
  receiver.respond(async () => {
    await Bun.sleep(delayMs)
    return Response.json({ ok: true })
  })
  return {
    receiver,
    calls() {
      const byNode = new Map<string, { count: number; keys: Set<string> }>()
      for (const r of receiver.requests) {
        const match = /^\/call\/([^/]+)\/([^/?]+)/.exec(r.path)
        if (!match) continue
        const key = `${match[1]}/${match[2]}`
        const entry = byNode.get(key) ?? { count: 0, keys: new Set<string>() }
        entry.count++
        entry.keys.add(r.headers['idempotency-key'] ?? '')
        byNode.set(key, entry)
      }
      return byNode
    },
    stop: () => receiver.stop(),
  }
}

export interface LoadOptions {
  /** Runs started per second, over all kinds and channels. */
  rate: number
  /** The API processes' bases now (a restarted process has a new port). */
  bases: () => string[]
  workflows: FaultWorkflows
  /** How long one request keeps being resent before the client gives up. */
  giveUpMs?: number
  /** How long one attempt may take before the client abandons it (and resends). */
  attemptTimeoutMs?: number
}

export interface Load {
  readonly sent: SentRun[]
  /** Stops starting runs and waits until every one sent is answered 2xx or given up. */
  stop(): Promise<void>
  /** Stops starting runs and resending: what is not answered yet gives up after its attempt. */
  abandon(): Promise<void>
}

export function startLoad(options: LoadOptions): Load {
  const giveUpMs = options.giveUpMs ?? 90_000
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 15_000
  const sent: SentRun[] = []
  const inFlight = new Set<Promise<void>>()
  let stopped = false
  let abandoned = false
  const started = Date.now()
  const unique = crypto.randomUUID().replace(/-/g, '').slice(0, 12)

  const pacing = (async () => {
    for (let n = 0; !stopped; n++) {
      const wait = started + (n * 1000) / options.rate - Date.now()
      if (wait > 0) await Bun.sleep(wait)
      if (stopped) break
      const kind = KINDS[n % KINDS.length]
      const channel = CHANNELS[Math.floor(n / KINDS.length) % CHANNELS.length]
      const workflow = options.workflows.byKey.get(`${kind}/${channel}`)!
      const run: SentRun = {
        n,
        kind,
        channel,
        workflowId: workflow.id,
        id: channel === 'api' ? `run_flt${unique}${String(n).padStart(7, '0')}` : `fault-${unique}-${n}`,
        firstSentAt: Date.now(),
        attempts: [],
        acceptedAt: null,
        runIds: new Set(),
        outcome: 'pending',
      }
      sent.push(run)
      const task = sendUntilAnswered(run, workflow.triggerSecret).finally(() => inFlight.delete(task))
      inFlight.add(task)
    }
  })()

  async function sendUntilAnswered(run: SentRun, secret: string) {
    for (let i = 0; ; i++) {
      const bases = options.bases()
      const base = bases[(run.n + i) % bases.length]
      const attempt = await sendOnce(run, base, secret, attemptTimeoutMs)
      run.attempts.push(attempt)
      if (typeof attempt.status === 'number' && attempt.status >= 200 && attempt.status < 300) return
      if (abandoned || Date.now() - run.firstSentAt > giveUpMs) {
        run.outcome = 'gave-up'
        return
      }
      await Bun.sleep(resendDelayMs(i, Number(attempt.retryAfter)))
    }
  }

  const stop = async () => {
    stopped = true
    await pacing
    while (inFlight.size > 0) await Promise.all([...inFlight])
  }
  return {
    sent,
    stop,
    abandon() {
      abandoned = true
      return stop()
    },
  }
}

/**
 * What a well-behaved client waits before its `failures`-th resend (0 for the first): at least what
 * Retry-After asks, doubling from half a second up to 8 s, with a quarter of jitter. Resending
 * every second as Retry-After alone asks would, after a 30-s outage at 60 runs/s, send about
 * 1,800 requests a second at a process that has just got its database back: an overload test,
 * not the recovery this measures.
 */
export function resendDelayMs(failures: number, retryAfterSeconds: number): number {
  const backoff = Math.min(8_000, 500 * 2 ** failures)
  return Math.max(retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : 0, backoff) * (0.75 + Math.random() / 2)
}

async function sendOnce(run: SentRun, base: string, secret: string, timeoutMs: number): Promise<Attempt> {
  const sentAt = Date.now()
  const request: { url: string; headers: Record<string, string>; body: unknown } =
    run.channel === 'api'
      ? {
          url: `${base}/v1/workflows/${run.workflowId}/run`,
          headers: { authorization: `Bearer ${KEY}` },
          body: { runId: run.id, payload: { n: run.n } },
        }
      : { url: `${base}/v1/webhooks/${secret}`, headers: { 'idempotency-key': run.id }, body: { n: run.n } }
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...request.headers },
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await response.text()
    const ms = Date.now() - sentAt
    let body: any = null
    try {
      body = JSON.parse(text)
    } catch {}
    const ok = response.status >= 200 && response.status < 300
    if (ok) accept(run, body)
    return {
      sentAt,
      ms,
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      errorBody:
        !ok &&
        body?.code === response.status &&
        typeof body?.message === 'string' &&
        typeof body?.requestId === 'string',
    }
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError'
    return {
      sentAt,
      ms: Date.now() - sentAt,
      status: timedOut ? 'timeout' : 'network-error',
      retryAfter: null,
      errorBody: false,
    }
  }
}

function accept(run: SentRun, body: any) {
  const data = body?.data ?? {}
  const runId: string | undefined = run.channel === 'api' ? data.runId : data.runIds?.[0]
  if (run.channel === 'webhook' && data.action === 'skipped' && data.reason !== 'duplicate') {
    run.outcome = 'skipped'
    run.skipReason = String(data.reason)
    return
  }
  if (!runId) return
  run.runIds.add(runId)
  if (run.acceptedAt === null) run.acceptedAt = Date.now()
  run.outcome = 'accepted'
}

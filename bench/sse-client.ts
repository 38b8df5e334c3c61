/**
 * An SSE load client, as its own process: opens `count` raw connections to one stream, counts
 * the events each receives and how long after the event's journal time (`"at"`) they arrived.
 *   bun bench/sse-client.ts <port> <path> <key> <count> <expected events per connection> <timeout ms>
 * Prints "ready" once every connection has its response headers, then one JSON line of results.
 */
export {}

const [portArg, path, key, countArg, expectedArg, timeoutArg] = process.argv.slice(2)
const count = Number(countArg)
const expected = Number(expectedArg)
const latencies: number[] = []
let delivered = 0
let connected = 0
let complete = 0
let firstAt = Number.POSITIVE_INFINITY
let lastAt = 0

const AT = /"at":"([^"]+)"/
await Promise.all(
  Array.from({ length: count }, () => {
    let buffer = ''
    let events = 0
    let headers = false
    return Bun.connect({
      hostname: '127.0.0.1',
      port: Number(portArg),
      socket: {
        open(socket) {
          socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`)
        },
        data(_socket, data) {
          const now = performance.timeOrigin + performance.now()
          buffer += data.toString()
          if (!headers && buffer.includes('\r\n\r\n')) {
            headers = true
            connected++
            if (connected === count) console.log('ready')
          }
          let start = 0
          let end: number
          while ((end = buffer.indexOf('\n\n', start)) >= 0) {
            const frame = buffer.slice(start, end)
            start = end + 2
            if (!frame.includes('\nevent: ')) continue
            const m = AT.exec(frame)
            if (m) latencies.push(now - Date.parse(m[1]))
            delivered++
            events++
            firstAt = Math.min(firstAt, now)
            lastAt = Math.max(lastAt, now)
            if (events === expected) complete++
          }
          buffer = buffer.slice(start)
        },
      },
    })
  }),
)

const deadline = Date.now() + Number(timeoutArg)
while (complete < count && Date.now() < deadline) await Bun.sleep(20)
latencies.sort((a, b) => a - b)
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? null
console.log(
  JSON.stringify({
    connected,
    complete,
    delivered,
    seconds: (lastAt - firstAt) / 1000,
    p50: pct(50),
    p99: pct(99),
    max: latencies.at(-1) ?? null,
  }),
)
process.exit(0)

/**
 * A hook receiver for the benchmark, in its own process: answers every POST with 200 after a
 * fixed delay, like a customer endpoint that does some work first (0: at once). Prints its port.
 *   bun bench/hook-receiver.ts [delay ms = 200]
 */
const delay = Number(process.argv[2] ?? 200)
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    await request.arrayBuffer()
    if (delay > 0) await Bun.sleep(delay)
    return new Response('ok')
  },
})
console.log(server.port)

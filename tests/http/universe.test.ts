/**
 * The situation universe: golden rankings that SQLite and Postgres answer alike, listing and
 * paging, 400s, 503 while an import replaces it and when it is switched off, imports that never
 * show half a universe, and the situation trigger's tickers checked when a workflow is saved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { parseUniverseCsv, UniverseFileError } from '../../core/services/universe.ts'
import { BUN, ROOT } from '../helpers/process.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { tempDir } from '../helpers/tmp.ts'

const symbols = (body: { items: Array<{ symbol: string }> }) => body.items.map((i) => i.symbol)

const GOLDEN: Array<[string, string[]]> = [
  ['apple', ['AAPL']],
  ['aapl', ['AAPL']],
  ['$AAPL', ['AAPL']],
  ['AAPL', ['AAPL']],
  ['brk.b', ['BRK-B']],
  ['BRK-B', ['BRK-B']],
  ['btc', ['BTC', 'WBTC']],
  ['bit', ['BTC', 'WBTC', 'BCH']],
  ['micro', ['MSFT', 'AMD', 'MU', 'MSTR', 'SMCI']],
  ['bank of', ['BAC']],
]

for (const kind of storeKinds()) {
  describe(`the situation universe (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t?.close())

    it('ranks searches the same on every store: exact symbol, symbol prefix, name word, then full text', async () => {
      for (const [q, expected] of GOLDEN) {
        const r = await t.call('GET', `/v1/situation/universe?q=${encodeURIComponent(q)}&limit=5`)
        expect(r.status).toBe(200)
        expect({ q, first: symbols(r.body).slice(0, expected.length) }).toEqual({ q, first: expected })
      }
      const apple = await t.call('GET', '/v1/situation/universe?q=apple')
      // No envelope: exactly the specification's fields.
      expect(Object.keys(apple.body).sort()).toEqual(['hasMore', 'items', 'limit', 'offset'])
      expect(apple.body.items[0]).toEqual({ symbol: 'AAPL', name: 'Apple Inc.', exchange: 'NASDAQ', type: 'equity' })
      expect(apple.body).toMatchObject({ limit: 20, offset: 0 })
    })

    it('lists in rank order, filtered by asset class, with offset and hasMore', async () => {
      const first = await t.call('GET', '/v1/situation/universe?asset_class=crypto&limit=3')
      expect(symbols(first.body)).toEqual(['BTC', 'ETH', 'USDT'])
      expect(first.body).toMatchObject({ hasMore: true, limit: 3, offset: 0 })
      const next = await t.call('GET', '/v1/situation/universe?asset_class=crypto&limit=3&offset=3')
      expect(symbols(next.body)).toEqual(['XRP', 'BNB', 'SOL'])
      const indices = await t.call('GET', '/v1/situation/universe?asset_class=index&limit=100')
      expect(indices.body.hasMore).toBe(false)
      expect(indices.body.items.every((i: { type: string }) => i.type === 'index')).toBe(true)
      const all = await t.call('GET', '/v1/situation/universe')
      expect(all.body.items).toHaveLength(20)
      expect(all.body.items[0].symbol).toBe('AAPL')
    })

    it('answers 400 for bad values, naming each, and 401 without a key', async () => {
      for (const query of [
        'limit=0',
        'limit=101',
        'limit=x',
        'offset=-1',
        'asset_class=bond',
        `q=${'x'.repeat(101)}`,
      ]) {
        const r = await t.call('GET', `/v1/situation/universe?${query}`)
        expect({ query, status: r.status }).toEqual({ query, status: 400 })
        expect(r.body.details.length).toBeGreaterThan(0)
      }
      expect((await t.call('GET', '/v1/situation/universe', { key: null })).status).toBe(401)
    })

    it("checks the situation trigger's tickers when a workflow is saved, listing the unknown ones", async () => {
      const definition = (tickers: string[]) => ({
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'situation-fired', payload: { tickers }, children: ['say'] },
          say: { type: 'log', payload: { message: 'x' } },
        },
      })
      const bad = await t.call('POST', '/v1/workflows', {
        body: { definition: definition(['AAPL', 'NOPE1', 'brk.b', 'ZZZZ9']) },
      })
      expect(bad.status).toBe(400)
      expect(bad.body.details.map((d: { path: string }) => d.path)).toEqual([
        '/definition/nodes/root/payload/tickers/1',
        '/definition/nodes/root/payload/tickers/3',
      ])
      const ok = await t.call('POST', '/v1/workflows', { body: { definition: definition(['AAPL', '$btc', 'brk.b']) } })
      expect(ok.status).toBe(200)
      const update = await t.call('PUT', `/v1/workflows/${ok.body.data.id}`, {
        body: { definition: definition(['NOPE1']) },
      })
      expect(update.status).toBe(400)
      const validate = await t.call('POST', '/v1/workflows/validate', { body: { definition: definition(['NOPE1']) } })
      expect(validate.body.data ?? validate.body).toMatchObject({ valid: false })
    })

    it('answers searches during an import with 503 and Retry-After or a whole universe, never a part of the new one', async () => {
      // Two tickers named alike, at the two ends of the file: an import that shows part of itself
      // shows the first without the last.
      const rows = [
        'symbol,name,exchange,type,rank',
        'ZFIRST,Zyzzyva First,TEST,equity,1',
        ...Array.from({ length: 3000 }, (_, i) => `T${i},Ticker Number ${i},TEST,equity,${i + 2}`),
        'AAPL,Apple Inc.,NASDAQ,equity,0',
        'ZLAST,Zyzzyva Last,TEST,equity,3002',
      ]
      let done = false
      const importing = t.system.universe.import(rows.join('\n'), 'test').finally(() => (done = true))
      const answers: Array<{ status: number; retryAfter: string | null; symbols: string[] | null }> = []
      do {
        const r = await t.call('GET', '/v1/situation/universe?q=zyzzyva')
        answers.push({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
          symbols: r.status === 200 ? symbols(r.body) : null,
        })
      } while (!done)
      expect(await importing).toEqual({ imported: 3003 })
      const whole = (a: (typeof answers)[number]) =>
        (a.status === 503 && a.retryAfter !== null) ||
        (a.status === 200 && ['', 'ZFIRST,ZLAST'].includes(a.symbols!.join(',')))
      expect(answers.filter((a) => !whole(a))).toEqual([])
      expect(symbols((await t.call('GET', '/v1/situation/universe?q=zyzzyva')).body)).toEqual(['ZFIRST', 'ZLAST'])
      const after = await t.call('GET', '/v1/situation/universe?q=ticker number 2999')
      expect(symbols(after.body)).toEqual(['T2999'])
      expect((await t.call('GET', '/v1/situation/universe?q=btc')).body.items).toEqual([])
      // A file with a problem changes nothing.
      await expect(t.system.universe.import('symbol,name,exchange,type\nX,Y,Z,bond', 'bad')).rejects.toBeInstanceOf(
        UniverseFileError,
      )
      expect(symbols((await t.call('GET', '/v1/situation/universe?q=T2999')).body)).toEqual(['T2999'])
      // Marked as being replaced (another process importing): 503.
      await t.system.store.write((tx) => tx.run("UPDATE universe_state SET status = 'importing' WHERE id = 1"))
      const busy = await t.call('GET', '/v1/situation/universe')
      expect(busy.status).toBe(503)
      expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0)
      await t.system.store.write((tx) => tx.run("UPDATE universe_state SET status = 'ready' WHERE id = 1"))
    })
  })
}

describe('the situation universe switched off', () => {
  let t: TestSystem
  beforeAll(async () => {
    t = await openTestSystem('sqlite', { AUTOMATON_SITUATION_UNIVERSE: 'off' })
  })
  afterAll(() => t?.close())

  it('answers 503 and checks no tickers', async () => {
    const r = await t.call('GET', '/v1/situation/universe?q=aapl')
    expect(r.status).toBe(503)
    expect(r.headers.get('retry-after')).not.toBeNull()
    const saved = await t.call('POST', '/v1/workflows', {
      body: {
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'situation-fired', payload: { tickers: ['ANYTHING'] } } },
        },
      },
    })
    expect(saved.status).toBe(200)
  })
})

describe('universe files', () => {
  it('reads symbol,name,exchange,type,rank with quotes, and refuses what it cannot use, naming the line', () => {
    expect(
      parseUniverseCsv(
        'symbol,name,exchange,type,rank\nAAPL,"Apple, Inc.",NASDAQ,equity,1\nBTC,Bitcoin,crypto,crypto,',
      ),
    ).toEqual([
      { symbol: 'AAPL', name: 'Apple, Inc.', exchange: 'NASDAQ', type: 'equity', rank: 1 },
      { symbol: 'BTC', name: 'Bitcoin', exchange: 'crypto', type: 'crypto', rank: 2 },
    ])
    expect(() => parseUniverseCsv('A,B,C,bond,1')).toThrow('line 1: the type must be one of equity, crypto, index')
    expect(() => parseUniverseCsv('BRK.B,x,y,equity,1\nBRK-B,x,y,equity,2')).toThrow('line 2: BRK-B is listed twice')
    expect(() => parseUniverseCsv('')).toThrow('the file lists no tickers')
  })

  it('imports with the CLI', async () => {
    const dir = tempDir()
    const file = join(dir.path, 'mine.csv')
    writeFileSync(file, 'symbol,name,exchange,type,rank\nACME,Acme Corporation,NYSE,equity,1\n')
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', AUTOMATON_DATA_DIR: dir.path }
    const cli = Bun.spawn([BUN, join(ROOT, 'main.ts'), 'universe', 'import', file], {
      cwd: ROOT,
      env,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(await cli.exited).toBe(0)
    expect(JSON.parse(await new Response(cli.stdout).text())).toEqual({ imported: 1 })
    const bad = Bun.spawn([BUN, join(ROOT, 'main.ts'), 'universe', 'import', join(dir.path, 'missing.csv')], {
      cwd: ROOT,
      env,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(await bad.exited).toBe(1)
    const t = await openTestSystem('sqlite', { AUTOMATON_DATA_DIR: dir.path })
    expect(symbols((await t.call('GET', '/v1/situation/universe')).body)).toEqual(['ACME'])
    await t.stop()
    dir.remove()
  })
})

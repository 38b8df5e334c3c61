/**
 * Reads a CPU profile written by `bun --cpu-prof` (the Chrome .cpuprofile format) and says where
 * the busy time went: by part of the system (our layers, XState, Elysia, postgres.js, SQLite,
 * JSON, garbage collection, Bun's native work) and by function. Time in native frames with no
 * source (a SQLite statement, JSON.stringify) is charged to the part that called them, except
 * JSON, which is its own line. Shares count samples, so a stall of the whole process (descheduled
 * on a busy machine) is not charged to whatever function the next sample lands in.
 *   bun bench/profile.ts <file.cpuprofile>
 */
import { readFileSync } from 'node:fs'

interface Frame {
  functionName: string
  url: string
  lineNumber: number
}
interface ProfileNode {
  id: number
  callFrame: Frame
  children?: number[]
}
interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

export interface ProfileSummary {
  busyMs: number
  parts: Array<{ part: string; ms: number; share: number }>
  functions: Array<{ name: string; ms: number; share: number }>
}

const PARTS: Array<[RegExp, string]> = [
  [/node_modules\/xstate\//, 'XState'],
  [/node_modules\/elysia\//, 'Elysia (routing, validation)'],
  [/node_modules\/@sinclair\/typebox\//, 'Elysia (routing, validation)'],
  [/node_modules\/postgres\//, 'postgres.js'],
  [/node_modules\/@nats-io\//, 'NATS client'],
  [/^bun:sqlite|\/adapters\/sqlite\//, 'SQLite statements and commits'],
  [/\/adapters\/postgres\/|\/adapters\/sql\//, 'store adapter'],
  [/\/runtime\/engine\//, 'engine (runs, journal)'],
  [/\/runtime\/dispatch\.ts/, 'admission'],
  [/\/runtime\//, 'runtime (other)'],
  [/\/core\/http\/|\/adapters\/bun\//, 'HTTP layer'],
  [/\/core\/store\//, 'repositories'],
  [/\/core\//, 'core (other)'],
  [/\/plugins\//, 'node handlers'],
  [/node_modules\//, 'other libraries'],
  [/^(bun|node):/, 'Bun built-ins'],
]

function partOf(url: string): string | null {
  if (!url) return null
  for (const [pattern, part] of PARTS) if (pattern.test(url)) return part
  return 'other'
}

export function summarize(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  // Each sample weighs one sampling interval (the median gap). A gap far longer than that is the
  // process descheduled on a busy machine, not time spent where the next sample happens to land.
  const gaps = profile.timeDeltas.filter((d) => d > 0).sort((a, b) => a - b)
  const interval = (gaps[gaps.length >> 1] ?? 1000) / 1000
  const self = new Map<number, number>()
  for (const id of profile.samples) self.set(id, (self.get(id) ?? 0) + interval)

  const parts = new Map<string, number>()
  const functions = new Map<string, number>()
  let busy = 0
  for (const [id, ms] of self) {
    const frame = byId.get(id)!.callFrame
    if (frame.functionName === '(idle)') continue
    busy += ms
    let part: string | null
    if (frame.functionName === '(garbage collector)') part = 'garbage collection'
    else if (frame.functionName === '(program)' || frame.functionName === '(root)')
      part = 'Bun native (HTTP server, I/O)'
    else if (!frame.url && /^(stringify|parse)$/.test(frame.functionName)) part = 'JSON'
    else {
      part = partOf(frame.url)
      // A native frame: charged to the nearest caller with a source.
      for (let up = parent.get(id); part === null && up !== undefined; up = parent.get(up))
        part = partOf(byId.get(up)!.callFrame.url)
      part ??= 'Bun native (HTTP server, I/O)'
    }
    parts.set(part, (parts.get(part) ?? 0) + ms)
    const name = `${frame.functionName || '(anonymous)'} ${frame.url ? `${frame.url.replace(/^.*?\/(node_modules|core|runtime|adapters|plugins)\//, '$1/')}:${frame.lineNumber + 1}` : '(native)'}`
    functions.set(name, (functions.get(name) ?? 0) + ms)
  }
  const rank = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1])
  return {
    busyMs: busy,
    parts: rank(parts).map(([part, ms]) => ({ part, ms, share: ms / busy })),
    functions: rank(functions)
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms, share: ms / busy })),
  }
}

export function printSummary(title: string, s: ProfileSummary): void {
  console.log(`\n${title}: ${(s.busyMs / 1000).toFixed(1)} s busy`)
  for (const p of s.parts) console.log(`  ${(p.share * 100).toFixed(1).padStart(5)}%  ${p.part}`)
  console.log('  top functions (self time):')
  for (const f of s.functions) console.log(`  ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name}`)
}

if (import.meta.main) printSummary(process.argv[2], summarize(process.argv[2], 25))

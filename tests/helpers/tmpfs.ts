/**
 * A small file system of a test's own (tmpfs), which the test fills to the last byte and frees
 * again: what a full disk does to a process writing there. Mounting needs root (or
 * CAP_SYS_ADMIN); where it is not permitted, mountTmpfs() answers null and says why.
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './tmp.ts'

export interface Tmpfs {
  readonly path: string
  /** Writes a filler file until the file system refuses (ENOSPC); answers the bytes written. */
  fill(): number
  /** Deletes the filler file: the space is free again at once. */
  free(): void
  /** Unmounts and removes the mount point; safe to call twice. */
  unmount(): Promise<void>
}

const FILLER = '.fault-filler'

async function run(cmd: string[]): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, output: `${out}${err}`.trim() }
}

/** Mounts a tmpfs of `sizeMb` on a fresh directory; null (and the reason) when mounting is not permitted here. */
export async function mountTmpfs(sizeMb: number): Promise<{ fs: Tmpfs } | { fs: null; reason: string }> {
  const dir = tempDir('automaton-tmpfs-')
  const mounted = await run(['mount', '-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', dir.path])
  if (mounted.code !== 0) {
    dir.remove()
    return { fs: null, reason: `mount -t tmpfs is not permitted here (${mounted.output || `exit ${mounted.code}`})` }
  }
  let unmounted = false
  const filler = join(dir.path, FILLER)
  return {
    fs: {
      path: dir.path,
      fill() {
        const fd = openSync(filler, 'a')
        let written = 0
        try {
          // Large blocks first, then smaller ones, down to a page: the last byte goes too.
          for (const size of [1 << 20, 64 << 10, 4 << 10, 512]) {
            const block = new Uint8Array(size).fill(7)
            for (;;) {
              try {
                written += writeSync(fd, block)
              } catch (error) {
                if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break
                throw error
              }
            }
          }
        } finally {
          closeSync(fd)
        }
        return written
      },
      free() {
        rmSync(filler, { force: true })
      },
      async unmount() {
        if (unmounted) return
        unmounted = true
        const result = await run(['umount', '-l', dir.path])
        if (result.code !== 0) console.warn(`could not unmount ${dir.path}: ${result.output}`)
        dir.remove()
      },
    },
  }
}

/** Why a tmpfs cannot be mounted here (not root, no CAP_SYS_ADMIN), or null when it can. */
export async function tmpfsRefusal(): Promise<string | null> {
  const probe = await mountTmpfs(1)
  if (!probe.fs) return probe.reason
  await probe.fs.unmount()
  return null
}

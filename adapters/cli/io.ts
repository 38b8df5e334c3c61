/** What commands read and write besides the system: JSON lines out, a secret line in, a stop signal. */
import process from 'node:process'
import { readFileSync } from 'node:fs'
import type { Logger } from '../../core/ports/logger.ts'
import { UsageError } from './args.ts'

/** One JSON line on standard output: every command's answer. */
export const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)

/** The first line of a file, or of standard input (prompting on a terminal). */
export async function readSecretLine(file: string | undefined, prompt: string): Promise<string> {
  let text: string
  if (file) text = readFileSync(file, 'utf8')
  else {
    if (process.stdin.isTTY) process.stderr.write(`${prompt}: `)
    text = ''
    for await (const chunk of process.stdin) {
      text += String(chunk)
      if (text.includes('\n')) break
    }
  }
  return text.split(/\r?\n/)[0]
}

/** The passphrase: the first line of --passphrase-file, or of standard input. */
export async function readPassphrase(flags: Readonly<Record<string, string>>): Promise<string> {
  const passphrase = await readSecretLine(flags['passphrase-file'], 'passphrase')
  if (passphrase.length < 8)
    throw new UsageError('the passphrase must be at least 8 characters (from --passphrase-file or standard input)')
  return passphrase
}

/** Resolves on the first SIGINT or SIGTERM. */
export const untilSignal = () =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })

/**
 * A long-running process (serve, worker) stays up when a promise rejects with nobody to hear it:
 * the runtime's default is to exit, and such a rejection comes from a library's own promise (a
 * driver's query it sent itself when its connection reset), not from a request or a run, whose
 * failures are all handled. It is logged as an error, with its stack, for someone to fix.
 */
export function logStrayRejections(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    logger.error('a promise rejected with nobody to hear it; serving on', {
      error: String(reason),
      stack: reason instanceof Error ? (reason.stack ?? '') : '',
    })
  })
}

/** What commands read and write besides the system: JSON lines out, a secret line in, a stop signal. */
import process from 'node:process'
import { readFileSync } from 'node:fs'
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

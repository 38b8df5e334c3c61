import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createGuardedHttpClient } from '../../../adapters/http/guarded-client.ts'
import { TargetRefusedError } from '../../../core/ports/http-client.ts'
import { type Receiver, startReceiver } from './receiver.ts'

let receiver: Receiver
beforeAll(() => {
  receiver = startReceiver()
})
afterAll(() => receiver.stop())

/**
 * A rebinding DNS server: a public address for the first `publicAnswers` questions, then the
 * receiver's 127.0.0.1. No allow-list, so reaching the receiver would mean the guard failed; the
 * public address is never connected to.
 */
function rebindingDns(publicAnswers: number) {
  const answers: string[] = []
  return {
    answers,
    resolve: async () => {
      const address = answers.length < publicAnswers ? '93.184.215.14' : '127.0.0.1'
      answers.push(address)
      return [address]
    },
  }
}

describe('DNS rebinding', () => {
  it('refuses at connect time when the name turns into loopback after the check of the same send', async () => {
    const dns = rebindingDns(1)
    const client = createGuardedHttpClient({ resolve: dns.resolve })
    const error = await client
      .send({ method: 'POST', url: `http://rebind.example:${receiver.port}/echo`, body: 'secret' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TargetRefusedError)
    expect(error).toMatchObject({ reason: 'forbidden-address', address: '127.0.0.1', range: 'loopback' })
    expect(dns.answers).toEqual(['93.184.215.14', '127.0.0.1'])
    expect(receiver.received).toHaveLength(0)
  })

  it('refuses a send to a target that passed checkTarget earlier and has rebound since', async () => {
    const dns = rebindingDns(2)
    const client = createGuardedHttpClient({ resolve: dns.resolve })
    await client.checkTarget(`https://rebind.example:${receiver.port}/hook`)
    const error = await client
      .send({ method: 'GET', url: `https://rebind.example:${receiver.port}/hook` })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TargetRefusedError)
    expect(dns.answers).toEqual(['93.184.215.14', '93.184.215.14', '127.0.0.1'])
    expect(receiver.received).toHaveLength(0)
  })

  it('still connects when the connect-time answer is allowed', async () => {
    const dns = rebindingDns(0)
    const client = createGuardedHttpClient({ allow: ['127.0.0.1/32'], resolve: dns.resolve })
    const response = await client.send({ method: 'GET', url: `http://rebind.example:${receiver.port}/echo` })
    expect(response.status).toBe(201)
    expect(dns.answers).toEqual(['127.0.0.1', '127.0.0.1'])
    expect(receiver.received).toHaveLength(1)
  })
})

/**
 * What a stored card's mask hides and what it leaves: the number in any spacing, the CVC only
 * where it is plainly the card's, and no other number.
 */
import { describe, expect, it } from 'bun:test'
import { createValueMask } from '../../core/security/value-mask.ts'

const valueMask = createValueMask(['connector-secret-1'], {
  cards: [
    { number: '4242424242424242', cvc: '737' },
    { number: '378282246310005', cvc: '1234' },
  ],
})
/** Masked values change their types (a number becomes "[card]"): compared as plain values. */
const mask = (value: unknown): unknown => valueMask(value)

describe('masking stored cards', () => {
  it('masks a stored number whatever separates its digits', () => {
    for (const written of [
      '4242424242424242',
      '4242 4242 4242 4242',
      '4242-4242-4242-4242',
      '4242.4242.4242.4242',
      '4242%204242%204242%204242',
      '4242+4242+4242+4242',
      '4242 - 4242 - 4242 - 4242',
      '3782 822463 10005',
    ]) {
      expect({ written, masked: mask(`paid with ${written}.`) }).toEqual({ written, masked: 'paid with [card].' })
    }
    expect(mask({ n: 4242424242424242 })).toEqual({ n: '[card]' })
    expect(mask({ ['card 4242 4242 4242 4242']: 1 })).toEqual({ ['card [card]']: 1 })
  })

  it('leaves numbers that are not a stored card as they are', () => {
    const innocent = {
      luhn: '5555555555554444',
      at: 1767225600123,
      id: '1288834974657123456',
      amount: '1000000000000000000',
      near: '4242424242424241',
      short: '424242424242',
      total: 737,
      code: '737',
      year: 1234,
    }
    expect(mask(innocent)).toEqual(innocent)
    expect(mask('order 7370001 of 737 items, 1234 left')).toBe('order 7370001 of 737 items, 1234 left')
  })

  it("masks a CVC only where it is plainly the card's", () => {
    expect(mask({ cvc: '737', 'x-echo-cvv': '737', securityCode: 1234, card_code: ' 737 ', count: '737' })).toEqual({
      cvc: '[cvc]',
      'x-echo-cvv': '[cvc]',
      securityCode: '[cvc]',
      card_code: '[cvc]',
      count: '737',
    })
    expect(mask('{"cvc":"737","qty":737}')).toBe('{"cvc":"[cvc]","qty":737}')
    expect(mask('cvv=737&amount=737')).toBe('cvv=[cvc]&amount=737')
    expect(mask('4242 4242 4242 4242 12/31 737')).toBe('[card] 12/31 [cvc]')
    expect(mask('4242424242424242|12|2031|737')).toBe('[card]|12|2031|[cvc]')
    expect(mask('4242424242424242, ordered 737')).toBe('[card], ordered 737')
  })

  it('keeps masking the connector secrets beside the cards', () => {
    expect(mask({ a: 'key connector-secret-1 and 4242-4242-4242-4242' })).toEqual({ a: 'key •••• and [card]' })
  })
})

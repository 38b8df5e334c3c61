/**
 * Masking stored payment cards by value. A card number is found whatever separates its digits —
 * spaces, dashes, dots, underscores, slashes, `+`, or their URL encodings — and becomes `[card]`;
 * only the numbers of the cards given are searched for, so other long numbers (timestamps,
 * snowflake ids, token amounts, other Luhn-valid numbers) are left as they are.
 *
 * A CVC is three or four digits, which innocent numbers are too, so it is masked (`[cvc]`) only
 * where it is plainly the card's: as the whole value of a field or header named like one (`cvc`,
 * `cvv`, `cvn`, `csc`, `securityCode`, `cardCode`), after such a name in text (`cvc=737`,
 * `"cvv": "737"`), or as a token just after a masked number (`[card] 12/31 737`). Anywhere else
 * `737` stays.
 */
export const CARD_MASK = '[card]'
export const CVC_MASK = '[cvc]'

export interface StoredCard {
  number: string
  cvc?: string
}

/** What masks cards in text and in the fields of a JSON-like value. */
export interface CardMasking {
  /** Whether serialized text (JSON) may hold a card or its CVC: a cheap test before a walk. */
  mayHold(text: string): boolean
  /** The text with every stored number, and each CVC in the places above, masked. */
  text(text: string): string
  /** A field's value masked by its name: the CVC when the name says it is one. */
  field(name: string, value: string | number): string | number
}

/** What may stand between two digits of a number: at most three of these. */
const SEPARATOR = String.raw`(?:[ .\-_/+\u00a0\u2009\u202f\u2010-\u2013]|%20|%2[bBdDeEfF]){0,3}`
const CVC_NAME = String.raw`cvc2?|cvv2?|cvn|csc|security[-_ ]?code|card[-_ ]?code`
const IS_CVC_NAME = new RegExp(CVC_NAME, 'i')
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export function createCardMasking(cards: readonly StoredCard[]): CardMasking | undefined {
  const numbers = [...new Set(cards.map((c) => c.number.replace(/\D/g, '')).filter((n) => n.length >= 12))].sort(
    (a, b) => b.length - a.length,
  )
  const cvcs = [...new Set(cards.map((c) => c.cvc ?? '').filter((c) => /^\d{3,4}$/.test(c)))]
  if (numbers.length === 0 && cvcs.length === 0) return undefined
  const number = numbers.length > 0 ? new RegExp(numbers.map((n) => n.split('').join(SEPARATOR)).join('|'), 'g') : null
  const anyCvc = cvcs.length > 0 ? cvcs.join('|') : null
  const named = anyCvc ? new RegExp(String.raw`(${CVC_NAME})([^A-Za-z0-9]{1,8})(?:${anyCvc})(?!\d)`, 'gi') : null
  const afterCard = anyCvc
    ? new RegExp(
        String.raw`(${escaped(CARD_MASK)}(?:[^A-Za-z0-9]{1,6}\d{1,4}){0,2}[^A-Za-z0-9]{1,6})(?:${anyCvc})(?!\d)`,
        'g',
      )
    : null
  const anyNumber = number ? new RegExp(number.source) : null
  const standalone = anyCvc ? new RegExp(String.raw`(?<!\d)(?:${anyCvc})(?!\d)`) : null

  const text = (input: string) => {
    let out = number ? input.replace(number, CARD_MASK) : input
    if (named) out = out.replace(named, `$1$2${CVC_MASK}`)
    if (afterCard && out.includes(CARD_MASK)) out = out.replace(afterCard, `$1${CVC_MASK}`)
    return out
  }
  return {
    mayHold: (serialized) =>
      (anyNumber !== null && anyNumber.test(serialized)) || (standalone !== null && standalone.test(serialized)),
    text,
    field(name, value) {
      if (cvcs.length > 0 && IS_CVC_NAME.test(name) && cvcs.includes(String(value).trim())) return CVC_MASK
      if (typeof value === 'string') return text(value)
      // A number held as a JSON number (a parsed body) is masked too, as text.
      const masked = text(String(value))
      return masked === String(value) ? value : masked
    },
  }
}

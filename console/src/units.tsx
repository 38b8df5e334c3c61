/**
 * Token amounts as people read them: the API keeps them in the token's smallest unit (a whole
 * number as a string); the console shows them in units with the token's decimals.
 */

/** `amount` (smallest unit) in units: formatUnits('1500000', 6) is '1.5'. Anything not a whole number is shown as it is. */
export function formatUnits(amount: string | number | bigint | null | undefined, decimals: number | undefined): string {
  if (amount === null || amount === undefined || amount === '') return '0'
  const text = String(amount)
  if (!/^-?\d+$/.test(text) || decimals === undefined || !Number.isInteger(decimals) || decimals <= 0) return text
  const negative = text.startsWith('-')
  const digits = (negative ? text.slice(1) : text).padStart(decimals + 1, '0')
  const whole = digits.slice(0, -decimals).replace(/^0+(?=\d)/, '')
  const fraction = digits.slice(-decimals).replace(/0+$/, '')
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`
}

/** An amount with its symbol, and the smallest-unit figure in a tooltip for who needs it. */
export function TokenAmount({ amount, decimals, symbol }: { amount: unknown; decimals?: number; symbol?: string }) {
  const raw = amount === null || amount === undefined ? '0' : String(amount)
  return (
    <span class="token-amount" title={`${raw} (smallest unit)`}>
      {formatUnits(raw, decimals)}
      {symbol ? ` ${symbol}` : ''}
    </span>
  )
}

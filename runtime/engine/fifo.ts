/**
 * A first-in, first-out queue with O(1) `shift`. `Array.prototype.shift` moves every remaining
 * element, which turns draining a queue of n runs into O(n²) work when a burst of admissions
 * queues tens of thousands of them. This one advances a head index and compacts the array only
 * once the consumed part is its larger half.
 */
export interface Fifo<T> {
  push(item: T): void
  shift(): T | undefined
  clear(): void
  readonly length: number
}

export function createFifo<T>(): Fifo<T> {
  let items: Array<T | undefined> = []
  let head = 0
  return {
    push(item) {
      items.push(item)
    },
    shift() {
      if (head >= items.length) return undefined
      const item = items[head]
      items[head++] = undefined
      if (head === items.length) {
        items = []
        head = 0
      } else if (head >= 1024 && head * 2 >= items.length) {
        items = items.slice(head)
        head = 0
      }
      return item
    },
    clear() {
      items = []
      head = 0
    },
    get length() {
      return items.length - head
    },
  }
}

/**
 * Compiles Solidity with solc-js (WebAssembly) in a worker, so that a compile, which takes from
 * tens of milliseconds to seconds, never holds the server's event loop.
 */
import solc from 'solc'

interface Job {
  id: number
  source: string
  fileName: string
}

self.onmessage = (event: MessageEvent<Job>) => {
  const { id, source, fileName } = event.data
  try {
    const input = {
      language: 'Solidity',
      sources: { [fileName]: { content: source } },
      settings: {
        optimizer: { enabled: true, runs: 200 },
        outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
      },
    }
    const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
      errors?: Array<{ severity: string; formattedMessage: string }>
      contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>
    }
    const errors = (output.errors ?? []).filter((e) => e.severity === 'error').map((e) => e.formattedMessage.trim())
    const warnings = (output.errors ?? []).filter((e) => e.severity !== 'error').map((e) => e.formattedMessage.trim())
    const contracts =
      errors.length > 0
        ? []
        : Object.entries(output.contracts?.[fileName] ?? {}).map(([name, c]) => ({
            name,
            abi: c.abi,
            bytecode: `0x${c.evm.bytecode.object}`,
          }))
    postMessage({ id, result: { contracts, errors, warnings } })
  } catch (error) {
    postMessage({ id, error: error instanceof Error ? error.message : String(error) })
  }
}

postMessage({ ready: true, version: solc.version() })

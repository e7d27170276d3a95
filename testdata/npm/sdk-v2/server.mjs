// A calibration server on the official TypeScript SDK v2
// (@modelcontextprotocol/server), written as its documentation shows: a
// factory of an McpServer with two ordinary tools, served over stdio by
// serveStdio, the SDK's stdio entry that speaks both eras and decides the
// era of a connection on its first messages.
//
//   node server.mjs [fast|delayed|async]
//
// fast:    connects the transport at once.
// delayed: waits 2 s before it connects the transport (the client's first
//          lines are already buffered in the pipe when it reads).
// async:   awaits an async setup first (a database to connect), 2 s.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';

const mode = process.argv[2] ?? 'fast';
if (!['fast', 'delayed', 'async'].includes(mode)) {
    console.error('usage: node server.mjs [fast|delayed|async]');
    process.exit(2);
}

const notes = new Map();

function build() {
    const server = new McpServer({ name: 'sealmark-sdk-v2-calibration', version: '1.0.0' });
    server.registerTool(
        'add',
        {
            description: 'Add two numbers.',
            inputSchema: z.object({ a: z.number(), b: z.number() })
        },
        async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] })
    );
    server.registerTool(
        'save_note',
        {
            description: 'Keep a short note in memory under a title.',
            inputSchema: z.object({ title: z.string().max(100), text: z.string().max(1000) })
        },
        async ({ title, text }) => {
            if (notes.size >= 100 && !notes.has(title)) {
                return { isError: true, content: [{ type: 'text', text: 'too many notes' }] };
            }
            notes.set(title, text);
            return { content: [{ type: 'text', text: `saved ${title}` }] };
        }
    );
    return server;
}

// An awaited async setup, as a server that connects to a database first.
async function setup() {
    await sleep(2000);
}

if (mode === 'async') {
    await setup();
}

if (mode === 'delayed') {
    setTimeout(() => serveStdio(build), 2000);
} else {
    serveStdio(build);
}

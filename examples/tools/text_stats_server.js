#!/usr/bin/env node
// text-stats: a small MCP server (stdio, newline-delimited JSON-RPC, protocol
// 2025-06-18) with one tool, count_words, for the example flow
// examples/flows/word-count-mcp.yaml. Node.js only, no packages: what any
// team's own MCP server looks like from the worker's side. The worker starts
// it from examples/tools/text-stats.yaml and offers its tool as
// text_count_words; the tool is a pure function of its input, so the file
// marks it cacheable and a run counts the same text once.
'use strict';
const readline = require('readline');

const tools = [{
  name: 'count_words',
  description: 'Counts the words, lines and characters of a text.',
  inputSchema: {
    type: 'object',
    properties: {text: {type: 'string', description: 'The text to count'}},
    required: ['text'],
  },
  annotations: {readOnlyHint: true, idempotentHint: true},
}];

function countWords(text) {
  const words = text.split(/[ \t\n\r\f\v]+/).filter((w) => w.length > 0).length;
  const lines = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return `${words} words, ${lines} lines, ${[...text].length} characters`;
}

function answer(id, result) {
  process.stdout.write(JSON.stringify({jsonrpc: '2.0', id, result}) + '\n');
}

function fail(id, code, message) {
  process.stdout.write(JSON.stringify({jsonrpc: '2.0', id, error: {code, message}}) + '\n');
}

function handle(message) {
  const {id, method, params} = message;
  if (id === undefined) return;  // notifications: nothing to answer
  switch (method) {
    case 'initialize':
      return answer(id, {
        protocolVersion: '2025-06-18',
        capabilities: {tools: {}},
        serverInfo: {name: 'text-stats', version: '1.0.0'},
      });
    case 'ping':
      return answer(id, {});
    case 'tools/list':
      return answer(id, {tools});
    case 'tools/call': {
      const name = params && params.name;
      const args = (params && params.arguments) || {};
      if (name !== 'count_words') return fail(id, -32602, `unknown tool: ${name}`);
      if (typeof args.text !== 'string') {
        return answer(id, {isError: true, content: [{type: 'text', text: 'text must be a string'}]});
      }
      return answer(id, {content: [{type: 'text', text: countWords(args.text)}]});
    }
    default:
      return fail(id, -32601, `method not found: ${method}`);
  }
}

readline.createInterface({input: process.stdin}).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch (e) {
    return fail(null, -32700, 'parse error');
  }
  handle(message);
});

"""Benchmark toolcall_lib.parse.tool_call_grammar: grammar build time per tool set, and llguidance's mask time per token.

Run: python benchmarks/bench_grammar.py   (needs the `grammar` extra: llguidance)

For tool sets of 1, 8 and 64 tools (each with four typed parameters), per layout (Hermes, Mistral, Llama 3 JSON):
- build: `tool_call_grammar(...)` (ours, pure Python), beside llguidance compiling that grammar into a matcher
  (`LLMatcher(tokenizer, grammar_from('lark', ...))`), the engine's own cost, measured in the same run;
- mask: llguidance's `compute_bitmask` per token while the layout's example call is consumed, over a byte-level
  tokenizer (257 tokens) and over a larger vocabulary of byte strings (every byte, then up to 32k frequent 2-4 byte
  runs of the examples' text; its size is printed), beside the same engine's mask for the bare JSON schema of the arguments alone
  (`grammar_from('json_schema', ...)`): what a format's markers add to constrained decoding.
Figures are the best of five rounds of CPU time (`time.process_time`).
"""
import json, time
import llguidance
from llguidance import LLMatcher, LLTokenizer, TokenizerWrapper
from toolcall_lib.parse import format_examples, tool_call_grammar

class _Vocabulary:
    "Byte strings as tokens; greedy longest-match tokenization."
    eos_token_id, bos_token_id, special_token_ids = 0, None, [0]
    def __init__(self, pieces):
        self.tokens = [b'<|end|>'] + [bytes([byte]) for byte in range(256)] + [piece for piece in pieces if len(piece) > 1]
        self.eos_token_id = 0
        self._ids = {token: number for number, token in enumerate(self.tokens) if number}
        self._longest = max(map(len, self.tokens))
    def __call__(self, data):
        ids, at = [], 0
        while at < len(data):
            for size in range(min(self._longest, len(data) - at), 0, -1):
                if (token := self._ids.get(data[at:at + size])) is not None: ids.append(token); at += size; break
        return ids

def tools(count):
    return [{'type': 'function', 'function': {'name': f'tool_{number}', 'parameters': {'type': 'object', 'properties': {
        'query': {'type': 'string'}, 'limit': {'type': 'integer'}, 'exact': {'type': 'boolean'},
        'mode': {'type': 'string', 'enum': ['fast', 'full']}}, 'required': ['query']}}} for number in range(count)]

ARGUMENTS = {'query': 'weather in Paris tomorrow', 'limit': 5, 'exact': False, 'mode': 'fast'}

def best(function, rounds=5):
    times = []
    for _ in range(rounds):
        start = time.process_time(); function(); times.append(time.process_time() - start)
    return min(times)

def mask_per_token(tokenizer, grammar, text):
    engine = LLMatcher(tokenizer, grammar)
    assert not engine.is_error(), engine.get_error()
    ids = tokenizer.tokenize_str(text)
    start = time.process_time()
    for token in ids:
        engine.compute_bitmask()
        assert engine.consume_token(token), engine.get_error()
    return (time.process_time() - start) / len(ids), len(ids)

def main():
    byte_level = LLTokenizer(TokenizerWrapper(_Vocabulary([])))
    corpus = ''.join(render(f'tool_{n}', ARGUMENTS) for render in format_examples().values() for n in range(3)).encode()
    pairs = {}
    for size in (2, 3, 4):
        for at in range(len(corpus) - size): pairs[corpus[at:at + size]] = pairs.get(corpus[at:at + size], 0) + 1
    common = sorted(pairs, key=pairs.get, reverse=True)[:32_000 - 257]
    vocabulary = _Vocabulary(common)
    large = LLTokenizer(TokenizerWrapper(vocabulary))
    print(f'larger vocabulary: {len(vocabulary.tokens)} tokens (bytes, then the example texts\' commonest 2-4 byte runs)')
    print(f'{"layout":<10} {"tools":>5} {"build (ours) ms":>16} {"compile (llg) ms":>17} '
          f'{"mask/token bytes µs":>20} {"json-only µs":>13} {"mask/token big µs":>18} {"json-only µs":>13}')
    for layout in ('hermes', 'mistral', 'llama3_json' if 'llama3_json' in format_examples() else 'json'):
        for count in (1, 8, 64):
            offered = tools(count)
            built = best(lambda: tool_call_grammar(offered, layout, mode='required'))
            lark = tool_call_grammar(offered, layout, mode='required')
            compiled = best(lambda: LLMatcher(large, llguidance.grammar_from('lark', lark)), rounds=3)
            text = format_examples()[layout](f'tool_{count - 1}', ARGUMENTS)
            schema = json.dumps(offered[-1]['function']['parameters'])
            row = []
            for tokenizer in (byte_level, large):
                ours = min(mask_per_token(tokenizer, llguidance.grammar_from('lark', lark), text)[0] for _ in range(3))
                peer = min(mask_per_token(tokenizer, llguidance.grammar_from('json_schema', schema),
                                          json.dumps(ARGUMENTS))[0] for _ in range(3))
                row += [ours, peer]
            print(f'{layout:<10} {count:>5} {built * 1e3:>16.3f} {compiled * 1e3:>17.3f} '
                  f'{row[0] * 1e6:>20.1f} {row[1] * 1e6:>13.1f} {row[2] * 1e6:>18.1f} {row[3] * 1e6:>13.1f}')

if __name__ == '__main__': main()

"""Token ids as ChatGLM2 builds them: sentencepiece pieces, then the specials appended after the
last piece ([MASK] = n, [gMASK] = n + 1, [sMASK] = n + 2, sop = n + 3, eop = n + 4 for n pieces).
Every input starts with [gMASK] sop; no BOS; generation stops at </s> (id 2)."""
import sentencepiece as spm

SPECIALS = ["[MASK]", "[gMASK]", "[sMASK]", "sop", "eop"]
EOS = 2


class NanoTokenizer:
    def __init__(self, model_file):
        self.sp = spm.SentencePieceProcessor(model_file=model_file)
        self.piece_count = self.sp.get_piece_size()
        self.gmask = self.piece_count + SPECIALS.index("[gMASK]")
        self.sop = self.piece_count + SPECIALS.index("sop")
        self.token_count = self.piece_count + len(SPECIALS)

    @property
    def padded_vocab_size(self):
        return (self.token_count + 63) // 64 * 64   # as ChatGLM2 pads 64794 to 65024

    def encode(self, text):
        return self.sp.encode(text)

    def decode(self, ids):
        return self.sp.decode([i for i in ids if i < self.piece_count])


def chat_prompt(history, question):
    """ChatGLM2's template: [Round i]\\n\\n问：{q}\\n\\n答：{a}\\n\\n for each earlier round."""
    text = ""
    for number, (q, a) in enumerate(history, start=1):
        text += f"[Round {number}]\n\n问：{q}\n\n答：{a}\n\n"
    return text + f"[Round {len(history) + 1}]\n\n问：{question}\n\n答："


def document_ids(tokenizer, prompt, answer):
    """A training document: the prompt encoded alone (as at inference), the answer, then </s>.
    Plain text has no prompt."""
    ids = [tokenizer.gmask, tokenizer.sop]
    if prompt:
        ids += tokenizer.encode(prompt)
    return ids + tokenizer.encode(answer) + [EOS]

"""chatserver: a chat-completions server on 127.0.0.1 for the e2e tests (python3's standard
library). serve(answer) prints the port it listens on, then answers every POST with
answer(body) -> (status, out): out a JSON object, or a string that becomes the answer's
choices[0].message.content. Bytes of out that are lone surrogates go out as they are
(invalid UTF-8, on purpose)."""
import jsonserver  # beside this file, on the importer's path


def completion(content):
    return {"id": "c", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 2, "completion_tokens": 2}}


def serve(answer):
    def reply(req):
        status, out = answer(req.body)
        return status, completion(out) if isinstance(out, str) else out
    jsonserver.serve(reply)

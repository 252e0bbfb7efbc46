"""Saved conversations (docs/conversations.md): one SQLite file per vault in the user data dir,
apart from the index, so no reindex can lose them.

A storage layer below ``api`` and the agent: it imports the configuration, the error type, the
scrubber and the safe file writer, nothing above them.

```python
with ConversationStore.open(vault) as store:
    chat = store.new("WAL checkpoints", backend="ollama", model="qwen3")
    store.append(chat.id, [Message("user", "why did the db lock?"), Message("assistant", "…")])
    store.search("lock")          # [ConversationHit(conversation_id=chat.id, ...)]
```
"""

from vaultctx.conversations.export import conversation_markdown
from vaultctx.conversations.location import (
    NotAConversationStoreError,
    StoreUnwritableError,
    conversations_path,
)
from vaultctx.conversations.model import (
    Conversation,
    ConversationHit,
    ConversationSummary,
    Message,
    Role,
    ToolCall,
)
from vaultctx.conversations.query import EmptyQueryError
from vaultctx.conversations.store import (
    AmbiguousConversationError,
    ConversationStore,
    StoreFromNewerVersionError,
    UnknownConversationError,
)

__all__ = [
    "AmbiguousConversationError",
    "Conversation",
    "ConversationHit",
    "ConversationStore",
    "ConversationSummary",
    "EmptyQueryError",
    "Message",
    "NotAConversationStoreError",
    "Role",
    "StoreFromNewerVersionError",
    "StoreUnwritableError",
    "ToolCall",
    "UnknownConversationError",
    "conversation_markdown",
    "conversations_path",
]

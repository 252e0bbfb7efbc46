"""The LLM backends, one module each (``openai``, ``ollama``, ``gemini``, ``bedrock``), the
contract they fill (``base``) and the registry that finds them by name (``registry``)."""

"""Visual memory: images the user adds, their captions and entity tags in `visual_memories`, their OpenCLIP
vectors in a FAISS index, and retrieval by entity, CLIP or caption (docs/knowledge.md, "Images")."""

"""`baobei lsp`: a language server for `.bao` files and the project's YAML files.

project.py reads a rules project on the editor's texts (every variant that includes a file,
with every error collected); index.py finds what each name denotes; the other modules answer
one kind of request each; server.py wires them to the protocol (pygls).
"""

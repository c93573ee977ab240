// `import QuireCore` brings the leaf below it too: errors, property lists and file helpers.
@_exported import QuireSupport

"""Write the value of a module-level string variable of a Python file (a fake tool that prints a recorded
output), without the newline that follows the opening quotes: the recorded output as the fake prints it.
Usage: extract-python-string.py FILE.py VARIABLE OUT"""
import ast, sys
src, var, out = sys.argv[1], sys.argv[2], sys.argv[3]
tree = ast.parse(open(src, encoding='utf-8').read())
for node in tree.body:
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == var for t in node.targets):
        value = node.value.value
        if value.startswith('\n'):
            value = value[1:]
        open(out, 'w', encoding='utf-8', newline='').write(value)
        break
else:
    sys.exit(f'{src}: no module-level string {var}')

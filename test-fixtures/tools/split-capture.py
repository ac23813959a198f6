"""Split an nvidia_gpu_exporter capture into bundle files: the first section of each command, bytes unchanged.
A section is everything between the '####' rule closing its header and the '####' rule opening the next header."""
import sys, re, os
src, out = sys.argv[1], sys.argv[2]
data = open(src, 'rb').read()
lines = data.split(b'\n')
# header = rule, '# title', '# $ cmd', rule
heads = []
for i in range(len(lines) - 3):
    if lines[i].startswith(b'#####') and lines[i+2].startswith(b'# $ ') and lines[i+3].startswith(b'#####'):
        heads.append((i, lines[i+2][4:].decode()))
wanted = {'nvidia-smi -L': 'nvidia-smi-L.txt', 'nvidia-smi ': 'nvidia-smi.txt', 'nvidia-smi': 'nvidia-smi.txt',
          'nvidia-smi -q': 'nvidia-smi-q.txt'}
os.makedirs(out, exist_ok=True)
done = set()
for k, (i, cmd) in enumerate(heads):
    name = wanted.get(cmd)
    if name is None and cmd.startswith('nvidia-smi --query-gpu=') and cmd.endswith('--format=csv'):
        name = 'nvidia-smi-query.csv'
    if name is None or name in done:
        continue
    end = heads[k+1][0] if k + 1 < len(heads) else len(lines)
    body = b'\n'.join(lines[i+4:end])
    if k + 1 < len(heads):
        body += b'\n'
    open(os.path.join(out, name), 'wb').write(body)
    done.add(name)
    print(name, 'lines', i+5, '-', end, file=sys.stderr)

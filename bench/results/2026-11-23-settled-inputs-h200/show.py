import json,sys,glob
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
  for l in open(f):
    d=json.loads(l)
    if d.get('kind')=='decode_ab': print(f.split('/')[-1],d.get('model'),d.get('tg'),d.get('variant'),d.get('round'),round(d['decode_tok_s']['median'],1))
    if d.get('kind')=='copy': print(f.split('/')[-1],'copy',round(d['bytes_per_s']/1e12,3))

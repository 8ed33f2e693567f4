// A tiny but genuine BERT-shaped model for the ONNX embedder's tests (no model can be downloaded
// here): `<dir>/<name>/onnx/model.onnx` maps input_ids [batch, seq] through a Gather over a
// seeded vocab x dims embedding table, times attention_mask, to last_hidden_state
// [batch, seq, dims]; beside it a WordPiece tokenizer.json over a few hundred words and the
// config files transformers.js reads. Serialised with protobufjs from the subset of onnx.proto
// it needs (field numbers as in onnx/onnx.proto). The special tokens' rows are zero, so a text's
// mean-pooled vector is the mean of its words' rows: texts that share words are close.
import fs from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';

const ONNX_SUBSET = `
syntax = "proto3";
package onnx;
message ModelProto { int64 ir_version = 1; string producer_name = 2; GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8; }
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message GraphProto {
  repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message NodeProto { repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4; repeated AttributeProto attribute = 5; }
message AttributeProto { string name = 1; int64 i = 3; int32 type = 20; }
message TensorProto { repeated int64 dims = 1; int32 data_type = 2; string name = 8; bytes raw_data = 9; }
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message TypeProto { message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; } Tensor tensor_type = 1; }
message TensorShapeProto { message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } } repeated Dimension dim = 1; }
`;
const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INT = 2;

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const WORDS = `the a an and or of to in on for with by at from is are was be been as it this that these
those not no all any every each per its their our your we you they he she his her them which who what
when where how why can may must should will shall would could has have had do does did
payment payments invoice invoices supplier suppliers contract contracts report reports reporting
audit audits auditor ledger account accounts balance bank banks transfer transfers wire money cash
fund funds loan loans credit debit card cards fee fees tax taxes filing deadline quarter quarterly
annual year years month months day days week weeks date dates
customer customers client clients tenant tenants user users employee employees staff manager managers
policy policies rule rules law laws regulation regulations compliance risk risks control controls
sanction sanctions embargo embargoed country countries border goods shipment shipped export import
fraud suspicious transaction transactions alert alerts review reviewed approval approved approve
document documents record records file files archive archived retention retained kept delete deleted
privacy data personal consent request requests access right rights erasure breach breaches notify
security password passwords key keys token tokens login session sessions network server servers
backup backups restore disaster recovery incident incidents response team teams owner owners
holiday holidays leave vacation sick salary salaries pay bonus benefits pension insurance health
office offices remote work working hours overtime travel expense expenses receipt receipts
meeting meetings board minutes vote votes director directors committee chair share shares
price prices cost costs budget budgets forecast revenue profit loss losses margin growth
product products service services order orders delivery deliveries warehouse stock inventory
train trains station ticket tickets weather rain snow sun summer winter garden flower flowers
cat cats dog dogs bird birds fish horse horses tree trees river rivers mountain mountains sea
music song songs guitar piano concert recipe recipes bread cake soup cheese coffee tea dinner
car cars automobile buy purchase sell sold new old big small good bad fast slow high low ten
one two three four five first second last next every`
  .split(/\s+/)
  .filter(Boolean);

/** Words the fixture tokenizer knows as whole tokens; anything else falls back to letters. */
export const FIXTURE_WORDS: readonly string[] = [...new Set(WORDS)];

/** Writes the model `name` under `dir` (the layout EMBEDDING_MODEL_DIR expects) and returns its folder. */
export function writeFixtureModel(dir: string, name: string, dims = 384): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
  const tokens = [...new Set([...SPECIAL, ...FIXTURE_WORDS, ...letters, ...letters.map((l) => `##${l}`)])];
  const vocab = Object.fromEntries(tokens.map((t, i) => [t, i]));
  const folder = path.join(dir, name);
  fs.mkdirSync(path.join(folder, 'onnx'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'onnx', 'model.onnx'), modelBytes(tokens.length, dims));
  fs.writeFileSync(path.join(folder, 'tokenizer.json'), JSON.stringify(tokenizer(vocab)));
  fs.writeFileSync(
    path.join(folder, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      mask_token: '[MASK]',
    }),
  );
  fs.writeFileSync(
    path.join(folder, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: dims,
      vocab_size: tokens.length,
      num_hidden_layers: 0,
      num_attention_heads: 1,
      max_position_embeddings: 512,
      pad_token_id: 0,
    }),
  );
  return folder;
}

/** A seeded table (xorshift32): zero rows for the special tokens, values in [-1, 1) elsewhere. */
function table(vocab: number, dims: number): Float32Array {
  const out = new Float32Array(vocab * dims);
  let s = 0x9e3779b9;
  for (let i = SPECIAL.length * dims; i < out.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

function modelBytes(vocab: number, dims: number): Uint8Array {
  const onnx = protobuf.parse(ONNX_SUBSET).root;
  const Model = onnx.lookupType('onnx.ModelProto');
  const weights = table(vocab, dims);
  const value = (name: string, elemType: number, dim: ({ dimParam: string } | { dimValue: number })[]) => ({
    name,
    type: { tensorType: { elemType, shape: { dim } } },
  });
  const batchSeq = [{ dimParam: 'batch' }, { dimParam: 'sequence' }];
  const model = {
    irVersion: 8,
    producerName: 'regulated-platform test fixture',
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: 'tiny-bert',
      input: [value('input_ids', INT64, batchSeq), value('attention_mask', INT64, batchSeq)],
      output: [value('last_hidden_state', FLOAT, [...batchSeq, { dimValue: dims }])],
      initializer: [
        { name: 'embeddings', dims: [vocab, dims], dataType: FLOAT, rawData: new Uint8Array(weights.buffer) },
        { name: 'last_axis', dims: [1], dataType: INT64, rawData: new Uint8Array(new BigInt64Array([-1n]).buffer) },
      ],
      node: [
        {
          opType: 'Gather',
          name: 'lookup',
          input: ['embeddings', 'input_ids'],
          output: ['looked_up'],
          attribute: [{ name: 'axis', type: ATTRIBUTE_INT, i: 0 }],
        },
        {
          opType: 'Cast',
          name: 'mask_float',
          input: ['attention_mask'],
          output: ['mask_f'],
          attribute: [{ name: 'to', type: ATTRIBUTE_INT, i: FLOAT }],
        },
        { opType: 'Unsqueeze', name: 'mask_column', input: ['mask_f', 'last_axis'], output: ['mask_3d'] },
        { opType: 'Mul', name: 'masked', input: ['looked_up', 'mask_3d'], output: ['last_hidden_state'] },
      ],
    },
  };
  const err = Model.verify(model);
  if (err) throw new Error(`fixture model: ${err}`);
  return Model.encode(Model.fromObject(model)).finish();
}

function tokenizer(vocab: Record<string, number>): unknown {
  const special = (content: string) => ({
    id: vocab[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const token = (t: string) => ({ id: t, ids: [vocab[t]], tokens: [t] });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': token('[CLS]'), '[SEP]': token('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

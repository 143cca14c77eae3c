// Command tlogcheck cross-checks graph_service's transparency log (docs/log-format.md) against Go's
// golang.org/x/mod/sumdb/tlog and golang.org/x/mod/sumdb/note, an independent implementation of the
// same RFC 9162 tree and C2SP signed notes.
//
// Usage: tlogcheck FIXTURE.json
//
// The fixture holds leaf inputs, the stored hashes, roots and proofs that graph_service.tlog.tree made,
// and a checkpoint that graph_service.tlog.checkpoint signed. tlogcheck rebuilds the tree with tlog,
// requires every stored hash, root and proof to equal tlog's, checks every proof with tlog.CheckRecord
// and tlog.CheckTree, opens the checkpoint with note.Open, and requires tampered proofs and notes to be
// refused. It re-signs the checkpoint with our signer key text read by note.NewSigner, and signs a
// checkpoint of its own with a fresh note.GenerateKey key, both for the caller to verify. It prints one
// JSON object on stdout and exits 1 if anything failed.
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type inclusionCase struct {
	Index int64    `json:"index"`
	Proof []string `json:"proof"`
}

type consistencyCase struct {
	M     int64    `json:"m"`
	RootM string   `json:"root_m"`
	Proof []string `json:"proof"`
}

type treeCase struct {
	Size        int64             `json:"size"`
	Root        string            `json:"root"`
	Inclusion   []inclusionCase   `json:"inclusion"`
	Consistency []consistencyCase `json:"consistency"`
}

type checkpointCase struct {
	Note        string `json:"note"`
	VerifierKey string `json:"verifier_key"`
	SignerKey   string `json:"signer_key"`
	Origin      string `json:"origin"`
	Size        int64  `json:"size"`
	Root        string `json:"root"`
	TimeMs      int64  `json:"time_ms"`
}

type signRequest struct {
	KeyName string `json:"key_name"`
	Origin  string `json:"origin"`
	Size    int64  `json:"size"`
	TimeMs  int64  `json:"time_ms"`
}

type fixture struct {
	Leaves     []string       `json:"leaves"`
	Stored     [][]string     `json:"stored"`
	Trees      []treeCase     `json:"trees"`
	Checkpoint checkpointCase `json:"checkpoint"`
	Sign       signRequest    `json:"sign"`
}

type signedNote struct {
	Text        string `json:"text"`
	VerifierKey string `json:"verifier_key"`
	Origin      string `json:"origin"`
	Size        int64  `json:"size"`
	Root        string `json:"root"`
	TimeMs      int64  `json:"time_ms"`
}

type report struct {
	OK       bool           `json:"ok"`
	Checked  map[string]int `json:"checked"`
	Failures []string       `json:"failures"`
	Note     *signedNote    `json:"note,omitempty"`
	Resigned string         `json:"resigned,omitempty"`
}

type checker struct {
	stored []tlog.Hash
	out    report
}

func (c *checker) fail(format string, args ...any) {
	c.out.Failures = append(c.out.Failures, fmt.Sprintf(format, args...))
}

func (c *checker) count(what string) {
	c.out.Checked[what]++
}

func (c *checker) reader() tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		hashes := make([]tlog.Hash, len(indexes))
		for i, index := range indexes {
			if index < 0 || index >= int64(len(c.stored)) {
				return nil, fmt.Errorf("stored hash %d not built", index)
			}
			hashes[i] = c.stored[index]
		}
		return hashes, nil
	})
}

func decodeHash(text string) (tlog.Hash, error) {
	var h tlog.Hash
	raw, err := hex.DecodeString(text)
	if err != nil || len(raw) != tlog.HashSize {
		return h, fmt.Errorf("%q is not a 32-byte hex hash", text)
	}
	copy(h[:], raw)
	return h, nil
}

func decodeHashes(texts []string) ([]tlog.Hash, error) {
	hashes := make([]tlog.Hash, len(texts))
	for i, text := range texts {
		h, err := decodeHash(text)
		if err != nil {
			return nil, err
		}
		hashes[i] = h
	}
	return hashes, nil
}

func equalHashes(a, b []tlog.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// flipped returns a copy of proof with one bit of hash i changed: a forgery tlog must refuse.
func flipped(proof []tlog.Hash, i int) []tlog.Hash {
	forged := append([]tlog.Hash(nil), proof...)
	forged[i][0] ^= 1
	return forged
}

// buildTree appends every leaf with tlog.StoredHashes, then requires the fixture's stored hashes
// tree(seq)[level] to equal tlog's hash at StoredHashIndex(level, seq>>level - 1).
func (c *checker) buildTree(f *fixture) [][]byte {
	leaves := make([][]byte, len(f.Leaves))
	for i, text := range f.Leaves {
		data, err := hex.DecodeString(text)
		if err != nil {
			c.fail("leaf %d: not hex", i)
			return nil
		}
		leaves[i] = data
		hashes, err := tlog.StoredHashes(int64(i), data, c.reader())
		if err != nil {
			c.fail("tlog.StoredHashes(%d): %v", i, err)
			return nil
		}
		c.stored = append(c.stored, hashes...)
	}
	if len(f.Stored) != len(leaves) {
		c.fail("fixture has stored hashes for %d entries, not %d", len(f.Stored), len(leaves))
	}
	for i, texts := range f.Stored {
		seq := int64(i + 1)
		ours, err := decodeHashes(texts)
		if err != nil {
			c.fail("stored hashes of seq %d: %v", seq, err)
			continue
		}
		if want := tlog.StoredHashCount(seq) - tlog.StoredHashCount(seq-1); int64(len(ours)) != want {
			c.fail("seq %d keeps %d stored hashes, tlog keeps %d", seq, len(ours), want)
			continue
		}
		for level, h := range ours {
			index := tlog.StoredHashIndex(level, seq>>uint(level)-1)
			if c.stored[index] != h {
				c.fail("stored hash (seq %d, level %d) differs from tlog's", seq, level)
			}
			c.count("stored")
		}
	}
	return leaves
}

func (c *checker) checkTree(leaves [][]byte, tc treeCase) {
	root, err := decodeHash(tc.Root)
	if err != nil {
		c.fail("size %d root: %v", tc.Size, err)
		return
	}
	goRoot, err := tlog.TreeHash(tc.Size, c.reader())
	if err != nil || goRoot != root {
		c.fail("size %d: root differs from tlog.TreeHash (%v)", tc.Size, err)
	}
	c.count("roots")
	for _, ic := range tc.Inclusion {
		proof, err := decodeHashes(ic.Proof)
		if err != nil {
			c.fail("inclusion %d in %d: %v", ic.Index, tc.Size, err)
			continue
		}
		goProof, err := tlog.ProveRecord(tc.Size, ic.Index, c.reader())
		if err != nil || !equalHashes(goProof, proof) {
			c.fail("inclusion %d in %d: proof differs from tlog.ProveRecord (%v)", ic.Index, tc.Size, err)
		}
		leaf := tlog.RecordHash(leaves[ic.Index])
		if err := tlog.CheckRecord(proof, tc.Size, root, ic.Index, leaf); err != nil {
			c.fail("inclusion %d in %d: tlog.CheckRecord refuses our proof: %v", ic.Index, tc.Size, err)
		}
		if len(proof) > 0 {
			if tlog.CheckRecord(flipped(proof, len(proof)-1), tc.Size, root, ic.Index, leaf) == nil {
				c.fail("inclusion %d in %d: tlog.CheckRecord accepts a flipped hash", ic.Index, tc.Size)
			}
			c.count("refusals")
		}
		c.count("inclusion")
	}
	for _, cc := range tc.Consistency {
		proof, err := decodeHashes(cc.Proof)
		rootM, err2 := decodeHash(cc.RootM)
		if err != nil || err2 != nil {
			c.fail("consistency %d to %d: %v %v", cc.M, tc.Size, err, err2)
			continue
		}
		goProof, err := tlog.ProveTree(tc.Size, cc.M, c.reader())
		if err != nil || !equalHashes(goProof, proof) {
			c.fail("consistency %d to %d: proof differs from tlog.ProveTree (%v)", cc.M, tc.Size, err)
		}
		if err := tlog.CheckTree(proof, tc.Size, root, cc.M, rootM); err != nil {
			c.fail("consistency %d to %d: tlog.CheckTree refuses our proof: %v", cc.M, tc.Size, err)
		}
		if len(proof) > 0 {
			if tlog.CheckTree(flipped(proof, 0), tc.Size, root, cc.M, rootM) == nil {
				c.fail("consistency %d to %d: tlog.CheckTree accepts a flipped hash", cc.M, tc.Size)
			}
			c.count("refusals")
		}
		c.count("consistency")
	}
}

// parseCheckpoint reads "<origin>\n<size>\n<base64 root>\ntime <ms>\n" (extension lines after time allowed).
func parseCheckpoint(text string) (origin string, size int64, root tlog.Hash, timeMs int64, err error) {
	malformed := errors.New("malformed checkpoint")
	if !strings.HasSuffix(text, "\n") {
		return "", 0, root, 0, malformed
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) < 4 || lines[0] == "" || !strings.HasPrefix(lines[3], "time ") {
		return "", 0, root, 0, malformed
	}
	size, err = strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return "", 0, root, 0, malformed
	}
	raw, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(raw) != tlog.HashSize {
		return "", 0, root, 0, malformed
	}
	copy(root[:], raw)
	timeText := strings.TrimPrefix(lines[3], "time ")
	timeMs, err = strconv.ParseInt(timeText, 10, 64)
	if err != nil || timeMs < 0 || strconv.FormatInt(timeMs, 10) != timeText {
		return "", 0, root, 0, malformed
	}
	return lines[0], size, root, timeMs, nil
}

func (c *checker) checkCheckpoint(cp checkpointCase) {
	verifier, err := note.NewVerifier(cp.VerifierKey)
	if err != nil {
		c.fail("note.NewVerifier refuses our verifier key: %v", err)
		return
	}
	opened, err := note.Open([]byte(cp.Note), note.VerifierList(verifier))
	if err != nil {
		c.fail("note.Open refuses our checkpoint: %v", err)
		return
	}
	if len(opened.Sigs) != 1 || opened.Sigs[0].Name != verifier.Name() || opened.Sigs[0].Hash != verifier.KeyHash() {
		c.fail("note.Open did not verify exactly our signature: %+v", opened.Sigs)
	}
	origin, size, root, timeMs, err := parseCheckpoint(opened.Text)
	want, err2 := decodeHash(cp.Root)
	switch {
	case err != nil || err2 != nil:
		c.fail("checkpoint text: %v %v", err, err2)
	case origin != cp.Origin || size != cp.Size || root != want || timeMs != cp.TimeMs:
		c.fail("checkpoint says %q %d %s %d", origin, size, hex.EncodeToString(root[:]), timeMs)
	default:
		if goRoot, err := tlog.TreeHash(size, c.reader()); err != nil || goRoot != root {
			c.fail("checkpoint root is not tlog's root of size %d (%v)", size, err)
		}
	}
	c.count("checkpoints")
	// Our signer key text must be one note.NewSigner reads as the same key: its signature is returned.
	signer, err := note.NewSigner(cp.SignerKey)
	if err != nil {
		c.fail("note.NewSigner refuses our signer key: %v", err)
	} else if signer.Name() != verifier.Name() || signer.KeyHash() != verifier.KeyHash() {
		c.fail("note.NewSigner reads our signer key as %s+%08x", signer.Name(), signer.KeyHash())
	} else if resigned, err := note.Sign(&note.Note{Text: opened.Text}, signer); err != nil {
		c.fail("note.Sign with our signer key: %v", err)
	} else {
		c.out.Resigned = string(resigned)
	}
	tampered := []byte(cp.Note)
	tampered[bytes.IndexByte(tampered, '\n')+1] ^= 1
	if _, err := note.Open(tampered, note.VerifierList(verifier)); err == nil {
		c.fail("note.Open accepts our checkpoint with its size altered")
	}
	c.count("refusals")
	_, otherKey, err := note.GenerateKey(rand.Reader, verifier.Name())
	if err != nil {
		c.fail("note.GenerateKey: %v", err)
		return
	}
	otherVerifier, err := note.NewVerifier(otherKey)
	if err != nil {
		c.fail("note.NewVerifier: %v", err)
		return
	}
	if _, err := note.Open([]byte(cp.Note), note.VerifierList(otherVerifier)); err == nil {
		c.fail("note.Open accepts our checkpoint under another key of the same name")
	}
	c.count("refusals")
}

// sign makes a checkpoint of tlog's own root with a fresh key, for the caller to verify.
func (c *checker) sign(req signRequest) {
	skey, vkey, err := note.GenerateKey(rand.Reader, req.KeyName)
	if err != nil {
		c.fail("note.GenerateKey: %v", err)
		return
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		c.fail("note.NewSigner: %v", err)
		return
	}
	root, err := tlog.TreeHash(req.Size, c.reader())
	if err != nil {
		c.fail("tlog.TreeHash(%d): %v", req.Size, err)
		return
	}
	text := fmt.Sprintf("%s\n%d\n%s\ntime %d\n", req.Origin, req.Size, base64.StdEncoding.EncodeToString(root[:]), req.TimeMs)
	msg, err := note.Sign(&note.Note{Text: text}, signer)
	if err != nil {
		c.fail("note.Sign: %v", err)
		return
	}
	c.out.Note = &signedNote{
		Text: string(msg), VerifierKey: vkey, Origin: req.Origin, Size: req.Size,
		Root: hex.EncodeToString(root[:]), TimeMs: req.TimeMs,
	}
}

func run(path string) report {
	c := &checker{out: report{Checked: map[string]int{}, Failures: []string{}}}
	data, err := os.ReadFile(path)
	if err != nil {
		c.fail("read fixture: %v", err)
		return c.out
	}
	var f fixture
	if err := json.Unmarshal(data, &f); err != nil {
		c.fail("parse fixture: %v", err)
		return c.out
	}
	leaves := c.buildTree(&f)
	if leaves == nil {
		return c.out
	}
	for _, tc := range f.Trees {
		if tc.Size < 1 || tc.Size > int64(len(leaves)) {
			c.fail("tree size %d outside the %d leaves", tc.Size, len(leaves))
			continue
		}
		c.checkTree(leaves, tc)
	}
	c.checkCheckpoint(f.Checkpoint)
	c.sign(f.Sign)
	c.out.OK = len(c.out.Failures) == 0
	return c.out
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tlogcheck FIXTURE.json")
		os.Exit(2)
	}
	out := run(os.Args[1])
	encoded, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(string(encoded))
	if !out.OK {
		os.Exit(1)
	}
}

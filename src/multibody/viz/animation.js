// multibody animation viewer: draws the scene of one results file and plays its motion.
// The data (the <script id="multibody-data"> JSON) holds the display description and, per output
// frame, every body's CM position (float32 x y z) and orientation (float32 quaternion x y z w).
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";

const data = JSON.parse(document.getElementById("multibody-data").textContent);
const scene = data.scene;
const size = scene.size;
const frameCount = data.frame_count;
const bodyCount = scene.bodies.length;
const forceCount = scene.forces.length;

function decode(base64, ArrayType) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let k = 0; k < text.length; k++) bytes[k] = text.charCodeAt(k);
  return new ArrayType(bytes.buffer);
}

const times = decode(data.time, Float64Array);
const positions = decode(data.position, Float32Array); // (T, nb, 3)
const quaternions = decode(data.quaternion, Float32Array); // (T, nb, 4) x y z w
const forceVectors = decode(data.force, Float32Array); // (T, nf, 3) world [N]
const torqueVectors = decode(data.torque, Float32Array); // (T, nf, 3) world [N m]
const contactPoints = decode(data.contact_point, Float32Array); // (T, nf, 3) world [m]; NaN: not a contact
const channelValues = decode(data.channel_values, Float32Array); // (T, nc)

// ---------------------------------------------------------------- renderer, camera, lights
const container = document.getElementById("view");
let renderer;
try {
  renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
} catch (error) {
  showMessage("This browser cannot draw 3D (WebGL is unavailable): " + error.message);
  throw error;
}
renderer.setPixelRatio(window.devicePixelRatio);
renderer.setSize(container.clientWidth, container.clientHeight);
container.appendChild(renderer.domElement);

const world = new THREE.Scene();
world.background = new THREE.Color(0xeef1f5);
const camera = new THREE.PerspectiveCamera(40, container.clientWidth / container.clientHeight, size * 1e-3, size * 1e3);
camera.up.set(0, 0, 1); // world z is up
const controls = new OrbitControls(camera, renderer.domElement);
// Sky and ground light from above and below, a key light from over the viewer's left shoulder (it
// turns with the camera, so the side in view is always lit) and a weak fill from the right: faces
// at different angles get different shades and the shapes read as solids.
world.add(new THREE.HemisphereLight(0xffffff, 0x8a96a3, 0.9));
world.add(camera);
const keyLight = new THREE.DirectionalLight(0xffffff, 2.4);
keyLight.position.set(-1, 1.5, 1);
camera.add(keyLight, keyLight.target);
keyLight.target.position.set(0, 0, -1);
const fillLight = new THREE.DirectionalLight(0xffffff, 0.6);
fillLight.position.set(1.5, -0.5, 0.5);
camera.add(fillLight, fillLight.target);
fillLight.target.position.set(0, 0, -1);

function showMessage(text) {
  const box = document.getElementById("message");
  box.textContent = text;
  box.style.display = "block";
}

// ---------------------------------------------------------------- layers and geometry
const layers = {};
for (const name of ["shapes", "markers", "joints", "forces", "traces", "grid"]) {
  layers[name] = [];
}

function rotationQuaternion(rows) {
  const m = new THREE.Matrix4().set(
    rows[0][0], rows[0][1], rows[0][2], 0, rows[1][0], rows[1][1], rows[1][2], 0,
    rows[2][0], rows[2][1], rows[2][2], 0, 0, 0, 0, 1);
  return new THREE.Quaternion().setFromRotationMatrix(m);
}

function placed(object, description) {
  const frame = new THREE.Group();
  frame.position.fromArray(description.position);
  frame.quaternion.copy(rotationQuaternion(description.rotation));
  frame.add(object);
  return frame;
}

function shapeGeometry(shape) {
  const round = 40;
  switch (shape.type) {
    case "box": return new THREE.BoxGeometry(shape.size[0], shape.size[1], shape.size[2]);
    case "sphere": return new THREE.SphereGeometry(shape.radius, round, round / 2);
    case "ellipsoid": return new THREE.SphereGeometry(1, round, round / 2).scale(...shape.semi_axes);
    case "cylinder": return new THREE.CylinderGeometry(shape.radius, shape.radius, shape.length, round).rotateX(Math.PI / 2);
    case "capsule": return new THREE.CapsuleGeometry(shape.radius, shape.length, 8, round / 2).rotateX(Math.PI / 2);
    case "plane": return new THREE.PlaneGeometry(shape.size, shape.size);
    case "frustum":
      return new THREE.CylinderGeometry(shape.top_radius, shape.bottom_radius, shape.length, round)
        .rotateX(Math.PI / 2).translate(0, 0, shape.length / 2);
    case "mesh": {
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute("position", new THREE.Float32BufferAttribute(shape.vertices, 3));
      geometry.setIndex(shape.faces);
      geometry.computeVertexNormals();
      return geometry;
    }
    default: throw new Error("unknown shape type " + shape.type);
  }
}

function shapeObject(shape) {
  const material = new THREE.MeshStandardMaterial({
    color: shape.color, opacity: shape.opacity, transparent: shape.opacity < 1,
    depthWrite: shape.opacity >= 1, roughness: 0.55, metalness: 0.1,
  });
  const mesh = new THREE.Mesh(shapeGeometry(shape), material);
  layers.shapes.push(mesh);
  return placed(mesh, shape);
}

// Where each marker is in its body now: a marker on a flexible body moves with the deformation (showFlexible
// updates it and the frames placed at it); on a rigid body it stays where the scene puts it.
const markerPositions = scene.markers.map((marker) => new THREE.Vector3().fromArray(marker.position));
const markerFrames = scene.markers.map(() => []);

function placedAtMarker(object, markerIndex) {
  const frame = placed(object, scene.markers[markerIndex]);
  markerFrames[markerIndex].push(frame);
  return frame;
}

function markerTriad(markerIndex) {
  const triad = new THREE.AxesHelper(0.08 * size);
  layers.markers.push(triad);
  return placedAtMarker(triad, markerIndex);
}

// Inertia hint of a body drawn from its markers: the three principal ellipses of the uniform
// ellipsoid with the body's mass and inertia, as thin lines.
function inertiaRings(hint, color) {
  const rings = new THREE.Group();
  const [a, b, c] = hint.semi_axes;
  const material = new THREE.LineBasicMaterial({ color, transparent: true, opacity: 0.45 });
  for (const [u, v, plane] of [[a, b, "xy"], [b, c, "yz"], [a, c, "xz"]]) {
    const points = [];
    for (let k = 0; k < 64; k++) {
      const angle = (2 * Math.PI * k) / 64;
      const p = [u * Math.cos(angle), v * Math.sin(angle)];
      points.push(plane === "xy" ? new THREE.Vector3(p[0], p[1], 0)
        : plane === "yz" ? new THREE.Vector3(0, p[0], p[1]) : new THREE.Vector3(p[0], 0, p[1]));
    }
    rings.add(new THREE.LineLoop(new THREE.BufferGeometry().setFromPoints(points), material));
  }
  layers.shapes.push(rings);
  return placed(rings, { position: [0, 0, 0], rotation: hint.rotation });
}

// ---------------------------------------------------------------- bodies
const ground = new THREE.Group();
world.add(ground);
const bodies = scene.bodies.map(() => new THREE.Group());
bodies.forEach((group) => world.add(group));
const frameOf = (bodyIndex) => (bodyIndex < 0 ? ground : bodies[bodyIndex]);

scene.bodies.forEach((body, k) => body.shapes.forEach((shape) => bodies[k].add(shapeObject(shape))));
scene.bodies.forEach((body, k) => { if (body.inertia_hint) bodies[k].add(inertiaRings(body.inertia_hint, body.shapes[0].color)); });
scene.ground.shapes.forEach((shape) => ground.add(shapeObject(shape)));
scene.markers.forEach((marker, k) => frameOf(marker.body).add(markerTriad(k)));

function markerPoint(markerIndex, target) {
  return frameOf(scene.markers[markerIndex].body).localToWorld(target.copy(markerPositions[markerIndex]));
}

// ---------------------------------------------------------------- forces: coils and arrows
function coilGeometry(turns) {
  const points = [];
  const steps = turns * 24;
  for (let k = 0; k <= steps; k++) {
    const angle = (2 * Math.PI * turns * k) / steps;
    points.push(new THREE.Vector3(Math.cos(angle), Math.sin(angle), k / steps));
  }
  return new THREE.BufferGeometry().setFromPoints(points);
}

const coils = [];
const cylinders = [];
const CYLINDER_TUBE = new THREE.CylinderGeometry(1, 1, 1, 20).rotateX(Math.PI / 2); // unit radius and length along z
const arrows = [];
let forceScale = 0;
let torqueScale = 0;
for (let k = 0; k < frameCount * forceCount; k++) {
  forceScale = Math.max(forceScale, Math.hypot(forceVectors[3 * k], forceVectors[3 * k + 1], forceVectors[3 * k + 2]));
  torqueScale = Math.max(torqueScale, Math.hypot(torqueVectors[3 * k], torqueVectors[3 * k + 1], torqueVectors[3 * k + 2]));
}
scene.forces.forEach((force, f) => {
  if (force.i < 0) return; // an element with first-order states only (or a rope, drawn below): nothing to draw
  if (force.type === "RopeSpan") return; // drawn with its rope
  if (force.j >= 0 && force.type === "HydraulicCylinder") {
    // barrel from J and rod from I, each as long as the retracted cylinder, overlapping inside
    const tube = (radius, color) => {
      const mesh = new THREE.Mesh(CYLINDER_TUBE, new THREE.MeshStandardMaterial({ color, roughness: 0.4, metalness: 0.5 }));
      world.add(mesh);
      layers.forces.push(mesh);
      return { mesh, radius };
    };
    cylinders.push({ barrel: tube(0.6 * force.bore, 0x4a6fa5), rod: tube(0.5 * force.rod, 0xc9d0d8), i: force.i, j: force.j, length: force.retracted_length });
  } else if (force.j >= 0 && force.type === "SpringDamper") {
    const coil = new THREE.Line(coilGeometry(10), new THREE.LineBasicMaterial({ color: 0x2b6cb0 }));
    world.add(coil);
    layers.forces.push(coil);
    coils.push({ coil, i: force.i, j: force.j });
  } else {
    for (const [vectors, largest, color] of [[forceVectors, forceScale, 0xd64541], [torqueVectors, torqueScale, 0x8e5cc4]]) {
      if (largest === 0) continue;
      const arrow = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1, color);
      world.add(arrow);
      layers.forces.push(arrow);
      arrows.push({ arrow, index: f, marker: force.i, vectors, largest });
    }
  }
});

// ---------------------------------------------------------------- ropes: polylines through tangent points and arcs, coloured by tension
// Each point of a rope's polyline is coloured by the tension there (the span's, graded over a pulley's arc
// from the entry span's to the exit span's); its pulleys and winches are drawn as rims with a spoke that turns with them.
const slackColor = new THREE.Color(0x2b6cb0);
const tautColor = new THREE.Color(0xd64541);
const ropes = (data.ropes || []).map((rope) => {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(3 * rope.point_count), 3));
  geometry.setAttribute("color", new THREE.BufferAttribute(new Float32Array(3 * rope.point_count), 3));
  const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ vertexColors: true }));
  line.frustumCulled = false;
  world.add(line);
  layers.forces.push(line);
  const rimGeometry = new THREE.BufferGeometry();
  rimGeometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(3 * rope.rim_count), 3));
  const rims = new THREE.LineSegments(rimGeometry, new THREE.LineBasicMaterial({ color: 0x4a5568 }));
  rims.frustumCulled = false;
  world.add(rims);
  layers.forces.push(rims);
  return {
    line, rims, count: rope.point_count, rimCount: rope.rim_count, points: decode(rope.points, Float32Array),
    tension: decode(rope.tension, Float32Array), largest: rope.largest, rimPoints: decode(rope.rims, Float32Array),
  };
});

function showRopes(frame) {
  const color = new THREE.Color();
  for (const rope of ropes) {
    const attribute = rope.line.geometry.getAttribute("position");
    attribute.array.set(rope.points.subarray(3 * rope.count * frame, 3 * rope.count * (frame + 1)));
    attribute.needsUpdate = true;
    const colors = rope.line.geometry.getAttribute("color");
    for (let k = 0; k < rope.count; k++) {
      const share = rope.largest > 0 ? rope.tension[rope.count * frame + k] / rope.largest : 0;
      color.copy(slackColor).lerp(tautColor, share).toArray(colors.array, 3 * k);
    }
    colors.needsUpdate = true;
    const rims = rope.rims.geometry.getAttribute("position");
    rims.array.set(rope.rimPoints.subarray(3 * rope.rimCount * frame, 3 * rope.rimCount * (frame + 1)));
    rims.needsUpdate = true;
  }
}

// ---------------------------------------------------------------- flexible bodies and beams: deformed meshes and tubes, coloured
// A flexible body's kept node k moves to X_k + s sum_j Phi_kj q_j (body axes; s the deformation scale, from the
// undeformed mesh); the surface of a solid or a tube along a beam's elements is drawn through the nodes and
// coloured by the true (unscaled) displacement magnitude or von Mises stress. A finite-segment beam is a tube
// through its segments' ends, coloured by the bending moment its joining springs carry. Each colouring has
// one legend for the whole run, from 0 to the run's largest value.
const COOL_WARM = [[0.230, 0.299, 0.754], [0.554, 0.690, 0.996], [0.865, 0.865, 0.865], [0.958, 0.604, 0.482], [0.706, 0.016, 0.150]];
const COLOR_QUANTITIES = {
  displacement: { title: "displacement", unit: "m", largest: "largest_displacement" },
  von_mises: { title: "von Mises stress", unit: "Pa", largest: "largest_stress" },
};
const TUBE_SIDES = 12;
let deformationScale = 1;
let colorBy = "displacement";

function colormap(share, target, offset) { // cool (0) to warm (1), written as r g b at target[offset]; NaN grey
  if (Number.isNaN(share)) { target[offset] = target[offset + 1] = target[offset + 2] = 0.6; return; }
  const x = Math.max(0, Math.min(1, share)) * (COOL_WARM.length - 1);
  const k = Math.min(Math.floor(x), COOL_WARM.length - 2);
  const f = x - k;
  for (let c = 0; c < 3; c++) target[offset + c] = (1 - f) * COOL_WARM[k][c] + f * COOL_WARM[k + 1][c];
}

function share(value, largest) { // where value sits on a legend from 0 to largest (NaN, no value, stays NaN)
  return largest > 0 ? value / largest : value * 0;
}

function tubeIndex(lines) { // quads between the rings of each element's two nodes
  const index = [];
  for (let e = 0; e < lines.length / 2; e++) {
    const a = lines[2 * e] * TUBE_SIDES;
    const b = lines[2 * e + 1] * TUBE_SIDES;
    for (let s = 0; s < TUBE_SIDES; s++) {
      const t = (s + 1) % TUBE_SIDES;
      index.push(a + s, b + s, b + t, a + s, b + t, a + t);
    }
  }
  return index;
}

function nodeTangents(points, lines) { // (3n) sum of the directions of each node's elements
  const tangents = new Float32Array(points.length);
  for (let e = 0; e < lines.length / 2; e++) {
    const [a, b] = [lines[2 * e], lines[2 * e + 1]];
    for (let c = 0; c < 3; c++) {
      const d = points[3 * b + c] - points[3 * a + c];
      tangents[3 * a + c] += d;
      tangents[3 * b + c] += d;
    }
  }
  return tangents;
}

function acrossReferences(points, lines) { // per node the axis most across its first tangent (fixed, so rings do not flip)
  const tangents = nodeTangents(points, lines);
  const axes = [new THREE.Vector3(1, 0, 0), new THREE.Vector3(0, 1, 0), new THREE.Vector3(0, 0, 1)];
  return Array.from({ length: points.length / 3 }, (_, k) => {
    const t = new THREE.Vector3().fromArray(tangents, 3 * k).normalize();
    return axes.reduce((best, v) => (Math.abs(v.dot(t)) < Math.abs(best.dot(t)) ? v : best));
  });
}

function tubeObject(vertexCount, index) {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(3 * vertexCount), 3));
  geometry.setAttribute("color", new THREE.BufferAttribute(new Float32Array(3 * vertexCount), 3));
  if (index) geometry.setIndex(index);
  const object = new THREE.Mesh(geometry, new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.6, metalness: 0.05, side: THREE.DoubleSide }));
  object.frustumCulled = false;
  layers.shapes.push(object);
  return object;
}

function sweepTube(object, points, lines, radius, references, values, largest) {
  // rings of TUBE_SIDES vertices about each point, across its tangent, coloured by values / largest
  const position = object.geometry.getAttribute("position");
  const color = object.geometry.getAttribute("color");
  const tangents = nodeTangents(points, lines);
  const tangent = new THREE.Vector3();
  const across = new THREE.Vector3();
  const third = new THREE.Vector3();
  for (let k = 0; k < points.length / 3; k++) {
    tangent.fromArray(tangents, 3 * k).normalize();
    across.crossVectors(tangent, references[k]).normalize();
    third.crossVectors(tangent, across);
    for (let s = 0; s < TUBE_SIDES; s++) {
      const angle = (2 * Math.PI * s) / TUBE_SIDES;
      const v = 3 * (k * TUBE_SIDES + s);
      for (let c = 0; c < 3; c++) {
        position.array[v + c] = points[3 * k + c] + radius * (Math.cos(angle) * across.getComponent(c) + Math.sin(angle) * third.getComponent(c));
      }
      colormap(share(values[k], largest), color.array, v);
    }
  }
  position.needsUpdate = true;
  color.needsUpdate = true;
  object.geometry.computeVertexNormals();
}

const flexibles = (data.flexible || []).map((flex) => {
  const n = flex.node_count;
  const rest = decode(flex.positions, Float32Array);
  const lines = decode(flex.lines, Uint32Array);
  let object;
  if (flex.kind === "points") {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(3 * n), 3));
    geometry.setAttribute("color", new THREE.BufferAttribute(new Float32Array(3 * n), 3));
    object = new THREE.Points(geometry, new THREE.PointsMaterial({ size: 0.02 * size, vertexColors: true }));
    object.frustumCulled = false;
    layers.shapes.push(object);
  } else if (flex.kind === "beam") {
    object = tubeObject(n * TUBE_SIDES, tubeIndex(lines));
  } else {
    object = tubeObject(n, Array.from(decode(flex.triangles, Uint32Array)));
  }
  bodies[flex.body].add(object);
  return {
    flex, object, n, m: flex.mode_count, rest, lines,
    references: flex.kind === "beam" ? acrossReferences(rest, lines) : null,
    modes: decode(flex.modes, Float32Array),
    stressModes: flex.stress_modes ? decode(flex.stress_modes, Float32Array) : null,
    q: decode(flex.modal_coordinates, Float32Array),
    markers: flex.markers.map((marker) => ({
      index: marker.index,
      translation: decode(marker.translation_modes, Float32Array), // (3, m)
      rotation: decode(marker.rotation_modes, Float32Array), // (3, m)
      restQuaternion: rotationQuaternion(scene.markers[marker.index].rotation),
    })),
    displaced: new Float32Array(3 * n),
    values: new Float32Array(n),
  };
});

function flexibleLargest() {
  return flexibles.reduce((largest, body) => Math.max(largest, body.flex[COLOR_QUANTITIES[colorBy].largest]), 0);
}

function showFlexible(frame) {
  const largest = flexibleLargest();
  for (const body of flexibles) {
    const { n, m, rest, modes, stressModes, displaced, values } = body;
    const q = body.q.subarray(frame * m, (frame + 1) * m);
    for (const marker of body.markers) { // origin at p_BM + s T q, axes turned by exp(skew(s A q))
      const u = [0, 0, 0];
      const theta = [0, 0, 0];
      for (let a = 0; a < 3; a++) {
        for (let j = 0; j < m; j++) {
          u[a] += marker.translation[a * m + j] * q[j];
          theta[a] += marker.rotation[a * m + j] * q[j];
        }
      }
      const position = markerPositions[marker.index].fromArray(scene.markers[marker.index].position);
      position.add(new THREE.Vector3(...u).multiplyScalar(deformationScale));
      const axis = new THREE.Vector3(...theta);
      const angle = deformationScale * axis.length();
      const turn = angle > 0 ? new THREE.Quaternion().setFromAxisAngle(axis.normalize(), angle) : new THREE.Quaternion();
      for (const placedFrame of markerFrames[marker.index]) {
        placedFrame.position.copy(position);
        placedFrame.quaternion.copy(turn).multiply(marker.restQuaternion);
      }
    }
    for (let k = 0; k < n; k++) {
      let squared = 0;
      for (let a = 0; a < 3; a++) {
        let u = 0;
        for (let j = 0; j < m; j++) u += modes[(3 * k + a) * m + j] * q[j];
        displaced[3 * k + a] = rest[3 * k + a] + deformationScale * u;
        squared += u * u;
      }
      if (colorBy === "von_mises" && stressModes) {
        const s = [0, 0, 0, 0, 0, 0];
        for (let a = 0; a < 6; a++) for (let j = 0; j < m; j++) s[a] += stressModes[(6 * k + a) * m + j] * q[j];
        values[k] = Math.sqrt(0.5 * ((s[0] - s[1]) ** 2 + (s[1] - s[2]) ** 2 + (s[2] - s[0]) ** 2) + 3 * (s[3] ** 2 + s[4] ** 2 + s[5] ** 2));
      } else {
        values[k] = colorBy === "von_mises" ? NaN : Math.sqrt(squared); // a beam mesh has no stress field: grey
      }
    }
    if (body.flex.kind === "beam") {
      sweepTube(body.object, displaced, body.lines, body.flex.radius, body.references, values, largest);
      continue;
    }
    const position = body.object.geometry.getAttribute("position");
    const color = body.object.geometry.getAttribute("color");
    position.array.set(displaced);
    for (let k = 0; k < n; k++) colormap(share(values[k], largest), color.array, 3 * k);
    position.needsUpdate = true;
    color.needsUpdate = true;
    if (body.flex.kind !== "points") body.object.geometry.computeVertexNormals();
  }
}

// finite-segment beams: world points per frame, moved by the displacement scale from the first frame as the bodies are
const segmentBeams = (data.beams || []).map((beam) => {
  const n = beam.node_count;
  const lines = new Uint32Array(2 * (n - 1)).map((_, k) => (k >> 1) + (k & 1));
  const points = decode(beam.points, Float32Array);
  const object = tubeObject(n * TUBE_SIDES, tubeIndex(lines));
  world.add(object);
  return {
    beam, object, n, lines, points,
    moments: decode(beam.bending_moment, Float32Array),
    references: acrossReferences(points.subarray(0, 3 * n), lines),
    drawn: new Float32Array(3 * n),
  };
});

function showSegmentBeams(frame) {
  for (const body of segmentBeams) {
    const { n, points, drawn } = body;
    for (let k = 0; k < 3 * n; k++) drawn[k] = points[k] + displacementScale * (points[3 * n * frame + k] - points[k]);
    sweepTube(body.object, drawn, body.lines, body.beam.radius, body.references, body.moments.subarray(n * frame, n * (frame + 1)), body.beam.largest);
  }
}

function legendEntries() {
  const entries = [];
  if (flexibles.length) {
    const quantity = COLOR_QUANTITIES[colorBy];
    entries.push({ title: quantity.title + " [" + quantity.unit + "]", largest: flexibleLargest() });
  }
  if (segmentBeams.length) {
    entries.push({ title: "bending moment [N m]", largest: segmentBeams.reduce((a, body) => Math.max(a, body.beam.largest), 0) });
  }
  return entries;
}

function showLegend() {
  const box = document.getElementById("legend");
  const stops = COOL_WARM.map((c, k) => "rgb(" + c.map((v) => Math.round(255 * v)).join(",") + ") " + (100 * k) / (COOL_WARM.length - 1) + "%");
  box.replaceChildren(...legendEntries().map((entry) => {
    const item = document.createElement("div");
    item.className = "legend-entry";
    item.innerHTML = '<div class="legend-title"></div><div class="legend-bar"></div><div class="legend-ends"><span>0</span><span></span></div>';
    item.querySelector(".legend-title").textContent = entry.title;
    item.querySelector(".legend-bar").style.background = "linear-gradient(to right, " + stops.join(", ") + ")";
    item.querySelector(".legend-ends span:last-child").textContent = entry.largest.toPrecision(3);
    return item;
  }));
  box.style.display = box.children.length ? "block" : "none";
}

function setColorBy(name) {
  if (!(name in COLOR_QUANTITIES)) throw new Error("unknown colour quantity '" + name + "'; quantities are: " + Object.keys(COLOR_QUANTITIES).join(", "));
  if (name === "von_mises" && !flexibles.some((body) => body.stressModes)) throw new Error("no solid flexible body: stresses are drawn for solid meshes");
  colorBy = name;
  document.getElementById("color-by").value = name;
  showLegend();
  showFlexible(frameIndex);
}

function setDeformationScale(s) {
  if (!(s >= 0)) throw new Error("the deformation scale must be a number >= 0, got " + s);
  deformationScale = s;
  document.getElementById("deformation-scale").value = String(s);
  showFlexible(frameIndex);
}

if (flexibles.length) {
  document.getElementById("flexible-controls").style.display = "block";
  if (flexibles.some((body) => body.stressModes)) document.getElementById("color-by").add(new Option("von Mises stress", "von_mises"));
  document.getElementById("color-by").addEventListener("change", (event) => setColorBy(event.target.value));
  document.getElementById("deformation-scale").addEventListener("change", (event) => setDeformationScale(Number(event.target.value)));
}
showLegend();

// ---------------------------------------------------------------- grid at the lowest point
const lowest = Array.from({ length: positions.length / 3 }, (_, k) => positions[3 * k + 2]).reduce((a, b) => Math.min(a, b), 0);
const grid = new THREE.GridHelper(10 * size, 20, 0x99a3ad, 0xc9d0d8);
grid.rotateX(Math.PI / 2); // GridHelper lies in x-z; the floor is x-y
grid.position.z = lowest - 0.5 * size;
world.add(grid);
layers.grid.push(grid);
const floor = new THREE.Mesh(new THREE.PlaneGeometry(10 * size, 10 * size),
  new THREE.MeshStandardMaterial({ color: 0xd5dbe2, roughness: 1, transparent: true, opacity: 0.5, depthWrite: false }));
floor.position.z = grid.position.z - 1e-3 * size; // under the grid lines
world.add(floor);
layers.grid.push(floor);
const worldAxes = new THREE.AxesHelper(0.15 * size);
ground.add(worldAxes);
layers.grid.push(worldAxes);

// ---------------------------------------------------------------- pose of a frame
let displacementScale = 1;
const firstQuaternion = (b) => new THREE.Quaternion(...quaternions.slice(4 * b, 4 * b + 4));

function bodyPose(frame, b, position, quaternion) {
  const p = 3 * (frame * bodyCount + b);
  const q = 4 * (frame * bodyCount + b);
  const s = displacementScale;
  position.set(
    positions[3 * b] + s * (positions[p] - positions[3 * b]),
    positions[3 * b + 1] + s * (positions[p + 1] - positions[3 * b + 1]),
    positions[3 * b + 2] + s * (positions[p + 2] - positions[3 * b + 2]));
  quaternion.set(quaternions[q], quaternions[q + 1], quaternions[q + 2], quaternions[q + 3]);
  if (s !== 1) { // scale the rotation from the first frame: angle times s about the same axis
    const start = firstQuaternion(b);
    const relative = start.clone().invert().multiply(quaternion);
    if (relative.w < 0) relative.set(-relative.x, -relative.y, -relative.z, -relative.w);
    const angle = 2 * Math.acos(Math.min(1, relative.w));
    const axis = new THREE.Vector3(relative.x, relative.y, relative.z);
    if (axis.lengthSq() > 0) {
      relative.setFromAxisAngle(axis.normalize(), s * angle);
    }
    quaternion.copy(start.multiply(relative));
  }
}

// ---------------------------------------------------------------- joints
// Each joint kind gets a picture of its mechanism, on the bodies of its two markers: a pin along
// the axis of a revolute (with a bearing on its J side), a carriage on a rail along the axis of a
// translational joint (the rail as long as the travel), a ball and socket, two crossed pins for a
// universal joint, a plate for a planar joint, a block for a fixed joint, a ring for a motion.
const JOINT_MATERIAL = new THREE.MeshStandardMaterial({ color: 0xf2a900, roughness: 0.45, metalness: 0.2 });
const GUIDE_MATERIAL = new THREE.MeshStandardMaterial({ color: 0x5b6675, roughness: 0.6, metalness: 0.3 });
const SOCKET_MATERIAL = new THREE.MeshStandardMaterial({ color: 0x5b6675, roughness: 0.6, transparent: true, opacity: 0.35, depthWrite: false });

function markerWorldFrame(frame, markerIndex, position, axis) {
  // marker origin and z axis in world at an output frame (no displacement scale)
  const marker = scene.markers[markerIndex];
  const p = new THREE.Vector3().fromArray(marker.position);
  axis.set(marker.rotation[0][2], marker.rotation[1][2], marker.rotation[2][2]);
  if (marker.body >= 0) {
    const b = marker.body;
    const q = 4 * (frame * bodyCount + b);
    const rotation = new THREE.Quaternion(quaternions[q], quaternions[q + 1], quaternions[q + 2], quaternions[q + 3]);
    p.applyQuaternion(rotation).add(scratch.fromArray(positions, 3 * (frame * bodyCount + b)));
    axis.applyQuaternion(rotation);
  }
  position.copy(p);
}

function travel(joint) { // range of the I marker's position along the J marker's z axis over the run [m]
  let low = Infinity;
  let high = -Infinity;
  const pi = new THREE.Vector3();
  const pj = new THREE.Vector3();
  const axis = new THREE.Vector3();
  const unused = new THREE.Vector3();
  for (let frame = 0; frame < frameCount; frame++) {
    markerWorldFrame(frame, joint.i, pi, unused);
    markerWorldFrame(frame, joint.j, pj, axis);
    const s = pi.sub(pj).dot(axis);
    low = Math.min(low, s);
    high = Math.max(high, s);
  }
  return [low, high];
}

function jointMesh(geometry, material, markerIndex) {
  const mesh = new THREE.Mesh(geometry, material);
  layers.joints.push(mesh);
  frameOf(scene.markers[markerIndex].body).add(placedAtMarker(mesh, markerIndex));
  return mesh;
}

function addJointGlyph(joint) {
  const r = 0.02 * size;
  const pin = (length, radius) => new THREE.CylinderGeometry(radius, radius, length, 28).rotateX(Math.PI / 2); // along z
  const onGround = scene.markers[joint.j].body < 0;
  switch (joint.type) {
    case "Revolute":
      jointMesh(pin(7 * r, r), JOINT_MATERIAL, joint.i);
      jointMesh(pin(3 * r, 1.7 * r), GUIDE_MATERIAL, joint.j); // the bearing
      break;
    case "Translational":
    case "Cylindrical": {
      const [low, high] = travel(joint);
      const length = high - low + 8 * r;
      const rail = joint.type === "Translational" ? new THREE.BoxGeometry(1.2 * r, 1.2 * r, length) : pin(length, 0.7 * r);
      jointMesh(rail.translate(0, 0, (low + high) / 2), GUIDE_MATERIAL, joint.j);
      const carriage = joint.type === "Translational" ? new THREE.BoxGeometry(3 * r, 3 * r, 4.5 * r) : pin(4.5 * r, 1.5 * r);
      jointMesh(carriage, JOINT_MATERIAL, joint.i);
      break;
    }
    case "Spherical":
      jointMesh(new THREE.SphereGeometry(1.6 * r, 28, 14), JOINT_MATERIAL, joint.i);
      jointMesh(new THREE.SphereGeometry(2.3 * r, 28, 14), SOCKET_MATERIAL, joint.j);
      break;
    case "Universal":
    case "Hooke":
      jointMesh(pin(5 * r, 0.8 * r), JOINT_MATERIAL, joint.i);
      jointMesh(pin(5 * r, 0.8 * r), GUIDE_MATERIAL, joint.j);
      break;
    case "Planar":
      jointMesh(new THREE.BoxGeometry(12 * r, 12 * r, 0.3 * r), SOCKET_MATERIAL, joint.j);
      jointMesh(new THREE.BoxGeometry(3 * r, 3 * r, 1 * r), JOINT_MATERIAL, joint.i);
      break;
    case "Fixed":
      jointMesh(new THREE.BoxGeometry(2.5 * r, 2.5 * r, 2.5 * r), JOINT_MATERIAL, joint.i);
      break;
    case "Motion":
      jointMesh(new THREE.TorusGeometry(3.5 * r, 0.35 * r, 8, 40), new THREE.MeshStandardMaterial({ color: 0xd64541 }), joint.i);
      return; // drawn on the joint it drives, which has its own glyph
    default: // joint primitives and the rest: a small ball where they act
      jointMesh(new THREE.SphereGeometry(0.9 * r, 20, 10), JOINT_MATERIAL, joint.i);
  }
  if (onGround && !["Revolute", "Translational", "Cylindrical", "Planar"].includes(joint.type)) {
    jointMesh(new THREE.BoxGeometry(2 * r, 2 * r, 2 * r), GUIDE_MATERIAL, joint.j); // where it holds to the ground
  }
}

let frameIndex = 0;
const scratch = new THREE.Vector3();
const scratch2 = new THREE.Vector3();
scene.joints.forEach(addJointGlyph);

function showFrame(frame) {
  frameIndex = Math.max(0, Math.min(frameCount - 1, frame));
  bodies.forEach((group, b) => {
    bodyPose(frameIndex, b, group.position, group.quaternion);
    group.updateMatrixWorld(true);
  });
  for (const { barrel, rod, i, j, length } of cylinders) {
    const rodEnd = markerPoint(i, scratch).clone();
    const base = markerPoint(j, scratch2);
    const along = rodEnd.clone().sub(base).normalize();
    for (const [tube, from, sign] of [[barrel, base, 1], [rod, rodEnd, -1]]) {
      tube.mesh.position.copy(from).addScaledVector(along, (sign * length) / 2);
      tube.mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), along);
      tube.mesh.scale.set(tube.radius, tube.radius, length);
    }
  }
  showRopes(frameIndex);
  showFlexible(frameIndex);
  showSegmentBeams(frameIndex);
  for (const { coil, i, j } of coils) {
    const start = markerPoint(i, scratch);
    const end = markerPoint(j, scratch2);
    const length = start.distanceTo(end);
    coil.position.copy(start);
    coil.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), end.clone().sub(start).normalize());
    coil.scale.set(0.03 * size, 0.03 * size, Math.max(length, 1e-9));
  }
  for (const { arrow, index, marker, vectors, largest } of arrows) {
    const v = 3 * (frameIndex * forceCount + index);
    const vector = new THREE.Vector3(vectors[v], vectors[v + 1], vectors[v + 2]);
    const magnitude = vector.length();
    // a contact's force is drawn where it acts, the contact point (its torque is that force's moment)
    const atContact = !Number.isNaN(contactPoints[v]);
    arrow.visible = layerShown("forces") && magnitude > 1e-12 * largest && !(atContact && vectors === torqueVectors);
    if (atContact) arrow.position.set(contactPoints[v], contactPoints[v + 1], contactPoints[v + 2]);
    else arrow.position.copy(markerPoint(marker, scratch));
    if (magnitude > 0) {
      arrow.setDirection(vector.divideScalar(magnitude));
      const length = (0.3 * size * magnitude) / largest;
      arrow.setLength(length, 0.25 * length, 0.12 * length);
    }
  }
  slider.value = String(frameIndex);
  updateReadout();
  if (window.parent !== window) window.parent.postMessage({ multibody: "time", time: times[frameIndex] }, "*"); // a report's plots follow
}

// ---------------------------------------------------------------- traces
const tracePoints = [{ label: "(choose a point)" }];
scene.bodies.forEach((body, b) => tracePoints.push({ label: body.name + " CM", body: b, local: [0, 0, 0] }));
scene.markers.forEach((marker) => {
  if (marker.body >= 0) tracePoints.push({ label: marker.name, body: marker.body, local: marker.position });
});
const traceSelect = document.getElementById("trace-point");
tracePoints.forEach((point, k) => traceSelect.add(new Option(point.label, String(k))));
const traces = [];

function tracePath(point) {
  const path = new Float32Array(3 * frameCount);
  const position = new THREE.Vector3();
  const quaternion = new THREE.Quaternion();
  for (let frame = 0; frame < frameCount; frame++) {
    bodyPose(frame, point.body, position, quaternion);
    scratch.fromArray(point.local).applyQuaternion(quaternion).add(position).toArray(path, 3 * frame);
  }
  return path;
}

function addTrace(label) {
  const point = tracePoints.find((p) => p.label === label && p.body !== undefined);
  if (!point) throw new Error("no point '" + label + "' to trace; points are: " + tracePoints.slice(1).map((p) => p.label).join(", "));
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(tracePath(point), 3));
  const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: 0x111111 }));
  line.visible = layerShown("traces");
  world.add(line);
  layers.traces.push(line);
  traces.push({ line, point });
}

function refreshTraces() {
  for (const { line, point } of traces) {
    line.geometry.setAttribute("position", new THREE.BufferAttribute(tracePath(point), 3));
  }
}

function clearTraces() {
  for (const { line } of traces) {
    world.remove(line);
    line.geometry.dispose();
  }
  traces.length = 0;
  layers.traces.length = 0;
}

// ---------------------------------------------------------------- views
const bounds = new THREE.Box3();
for (let k = 0; k < positions.length / 3; k++) bounds.expandByPoint(scratch.fromArray(positions, 3 * k));
scene.markers.forEach((m, k) => { // every marker at the first frame: links and joints end there
  markerWorldFrame(0, k, scratch2, new THREE.Vector3());
  bounds.expandByPoint(scratch2);
});
flexibles.forEach((body) => { // the undeformed meshes at the first frame
  const group = bodies[body.flex.body];
  bodyPose(0, body.flex.body, group.position, group.quaternion);
  group.updateMatrixWorld(true);
  for (let k = 0; k < body.n; k++) bounds.expandByPoint(bodies[body.flex.body].localToWorld(scratch2.fromArray(body.rest, 3 * k)));
});
const center = bounds.getCenter(new THREE.Vector3());
const radius = Math.max(bounds.getSize(new THREE.Vector3()).length() / 2, 0.8 * size);
const VIEWS = {
  front: [[0, -1, 0], [0, 0, 1]], // looking along +y, z up
  side: [[1, 0, 0], [0, 0, 1]], // looking along -x
  top: [[0, 0, 1], [0, 1, 0]], // looking down, y up
  iso: [[1, -1, 0.8], [0, 0, 1]],
};

function setView(name) {
  const view = VIEWS[name];
  if (!view) throw new Error("unknown view '" + name + "'; views are: " + Object.keys(VIEWS).join(", "));
  const distance = (1.15 * radius) / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2));
  const direction = new THREE.Vector3(...view[0]).normalize();
  camera.up.set(...view[1]);
  camera.position.copy(center).addScaledVector(direction, distance);
  controls.target.copy(center);
  camera.lookAt(center);
  controls.update();
}

// ---------------------------------------------------------------- controls and readout
const slider = document.getElementById("time-slider");
slider.max = String(frameCount - 1);
const playButton = document.getElementById("play");
const readout = document.getElementById("readout");
const timeLabel = document.getElementById("time-label");
let playing = false;
let speed = 1;
let playTime = 0;
let lastClock = null;

function updateReadout() {
  const t = times[frameIndex];
  timeLabel.textContent = "t = " + t.toFixed(4) + " s  (" + (frameIndex + 1) + "/" + frameCount + ")";
  const lines = data.channels.map((channel, c) => {
    const value = channelValues[frameIndex * data.channels.length + c];
    return channel.name + " = " + value.toPrecision(6) + " " + channel.unit;
  });
  readout.textContent = ["t = " + t.toPrecision(6) + " s", ...lines].join("\n");
}

function layerShown(name) {
  const box = document.querySelector('input[data-layer="' + name + '"]');
  return box ? box.checked : true;
}

function setVisible(name, shown) {
  if (!(name in layers)) throw new Error("unknown layer '" + name + "'; layers are: " + Object.keys(layers).join(", "));
  document.querySelector('input[data-layer="' + name + '"]').checked = shown;
  layers[name].forEach((object) => { object.visible = shown; });
  showFrame(frameIndex);
}

function frameAt(t) {
  let low = 0;
  let high = frameCount - 1;
  while (low < high) { // last frame with time <= t
    const middle = (low + high + 1) >> 1;
    if (times[middle] <= t) low = middle; else high = middle - 1;
  }
  if (low + 1 < frameCount && times[low + 1] - t < t - times[low]) low += 1;
  return low;
}

function play() {
  if (frameIndex >= frameCount - 1) showFrame(0);
  playing = true;
  playTime = times[frameIndex];
  lastClock = null;
  playButton.innerHTML = "&#10074;&#10074;";
}

function pause() {
  playing = false;
  playButton.innerHTML = "&#9654;";
}

playButton.addEventListener("click", () => (playing ? pause() : play()));
document.getElementById("step-back").addEventListener("click", () => { pause(); showFrame(frameIndex - 1); });
document.getElementById("step-forward").addEventListener("click", () => { pause(); showFrame(frameIndex + 1); });
slider.addEventListener("input", () => { pause(); showFrame(Number(slider.value)); });
document.getElementById("speed").addEventListener("change", (event) => { speed = Number(event.target.value); });
document.querySelectorAll("[data-view]").forEach((button) => button.addEventListener("click", () => setView(button.dataset.view)));
document.querySelectorAll("[data-layer]").forEach((box) => box.addEventListener("change", () => setVisible(box.dataset.layer, box.checked)));
document.getElementById("scale").addEventListener("change", (event) => setScale(Number(event.target.value)));
document.getElementById("trace-add").addEventListener("click", () => {
  const point = tracePoints[Number(traceSelect.value)];
  if (point.body !== undefined) addTrace(point.label);
});
document.getElementById("trace-clear").addEventListener("click", clearTraces);
const panel = document.getElementById("panel");
document.getElementById("panel-toggle").addEventListener("click", () => panel.classList.toggle("collapsed"));
if (window.parent !== window) panel.classList.add("collapsed"); // inside a report: leave the view to the model

function setScale(s) {
  if (!(s >= 0)) throw new Error("the displacement scale must be a number >= 0, got " + s);
  displacementScale = s;
  document.getElementById("scale").value = String(s);
  refreshTraces();
  showFrame(frameIndex);
}

window.addEventListener("message", (event) => { // a report's plot was clicked
  if (event.data && event.data.multibody === "setTime") { pause(); showFrame(frameAt(event.data.time)); }
});

window.addEventListener("resize", () => {
  camera.aspect = container.clientWidth / container.clientHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(container.clientWidth, container.clientHeight);
});

function animate(clock) {
  if (playing && frameCount > 1) {
    if (lastClock !== null) playTime += ((clock - lastClock) / 1000) * speed;
    lastClock = clock;
    if (playTime > times[frameCount - 1]) playTime = times[0] + (playTime - times[frameCount - 1]); // loop
    const frame = frameAt(playTime);
    if (frame !== frameIndex) showFrame(frame);
  }
  controls.update();
  renderer.render(world, camera);
}

setView("iso");
for (const name of Object.keys(layers)) layers[name].forEach((object) => { object.visible = layerShown(name); });
showFrame(0);
renderer.setAnimationLoop(animate);

// ---------------------------------------------------------------- the page's state, for scripts and tests
function bodyValues(size, read) {
  const result = [];
  const position = new THREE.Vector3();
  const quaternion = new THREE.Quaternion();
  for (let b = 0; b < bodyCount; b++) {
    bodyPose(frameIndex, b, position, quaternion);
    result.push(read(position, quaternion).slice(0, size));
  }
  return result;
}

window.multibodyViewer = {
  ready: true,
  frameCount,
  bodyNames: scene.bodies.map((body) => body.name),
  views: Object.keys(VIEWS),
  layers: Object.keys(layers),
  tracePoints: tracePoints.slice(1).map((p) => p.label),
  time: () => times[frameIndex],
  frameIndex: () => frameIndex,
  setFrame: (frame) => { pause(); showFrame(frame); },
  setTime: (t) => { pause(); showFrame(frameAt(t)); },
  play,
  pause,
  isPlaying: () => playing,
  setSpeed: (s) => { speed = s; },
  setView,
  setScale,
  setVisible,
  addTrace,
  readout: () => readout.textContent,
  bodyPositions: () => bodyValues(3, (p) => p.toArray()),
  bodyQuaternions: () => bodyValues(4, (p, q) => q.toArray()),
  screenPoint: (b) => { // pixel of body b's CM on the canvas, CSS pixels from the top left
    const p = bodies[b].position.clone().project(camera);
    return [((p.x + 1) / 2) * container.clientWidth, ((1 - p.y) / 2) * container.clientHeight];
  },
  markerScreenPoint: (m) => { // pixel of marker m on the canvas, CSS pixels from the top left
    const p = markerPoint(m, new THREE.Vector3()).project(camera);
    return [((p.x + 1) / 2) * container.clientWidth, ((1 - p.y) / 2) * container.clientHeight];
  },
  markerNames: scene.markers.map((marker) => marker.name),
  markerWorldPosition: (m) => markerPoint(m, new THREE.Vector3()).toArray(), // where marker m is drawn now [m]
  ropePoints: (r) => Array.from(ropes[r].line.geometry.getAttribute("position").array), // the drawn polyline, flat x y z
  ropeColor: (r, k = 0) => { // the colour drawn at point k of rope r's polyline
    const colors = ropes[r].line.geometry.getAttribute("color").array;
    return new THREE.Color(colors[3 * k], colors[3 * k + 1], colors[3 * k + 2]).getHexString();
  },
  ropeRims: (r) => Array.from(ropes[r].rims.geometry.getAttribute("position").array), // rims and spokes, flat x y z
  render: () => renderer.render(world, camera),
  flexibleBodies: flexibles.map((body) => body.flex.name),
  setDeformationScale,
  setColorBy,
  legend: () => legendEntries(), // [{title, largest}]: what each colour map runs over, 0 .. largest
  colorBy: () => colorBy,
  flexibleNodePositions: (f) => { // world positions of flexible body f's drawn nodes, flat x y z
    const body = flexibles[f];
    const group = bodies[body.flex.body];
    group.updateMatrixWorld(true);
    const out = [];
    for (let k = 0; k < body.n; k++) out.push(...group.localToWorld(scratch.fromArray(body.displaced, 3 * k)).toArray());
    return out;
  },
  flexibleNodeValues: (f) => Array.from(flexibles[f].values, (v) => (Number.isNaN(v) ? null : v)), // the coloured quantity at each node [m or Pa]; null: none
  flexibleVertexColors: (f) => Array.from(flexibles[f].object.geometry.getAttribute("color").array), // r g b per drawn vertex
  flexibleVertexCount: (f) => flexibles[f].object.geometry.getAttribute("position").count,
  flexibleTriangleCount: (f) => (flexibles[f].object.geometry.index ? flexibles[f].object.geometry.index.count / 3 : 0),
  beamNames: segmentBeams.map((body) => body.beam.name),
  beamTubeVertices: (b) => Array.from(segmentBeams[b].object.geometry.getAttribute("position").array), // flat x y z, a ring per node
  beamBendingMoments: (b) => { // the colouring moment at each segment end at the current frame [N m]
    const body = segmentBeams[b];
    return Array.from(body.moments.subarray(body.n * frameIndex, body.n * (frameIndex + 1)));
  },
  beamTubeColors: (b) => Array.from(segmentBeams[b].object.geometry.getAttribute("color").array), // r g b per vertex
};

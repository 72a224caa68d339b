// What <Python.h> gives a kernel source here (a PyTorch extension's module
// init, written out as flashinfer's extension headers write it): the object and
// module types a host declaration names, and no function to call: the host
// functions that build the module are left out, and launches come from TypeScript.
#ifndef FUSELAB_PYTHON_TYPES_H
#define FUSELAB_PYTHON_TYPES_H

typedef long Py_ssize_t;
typedef struct _object PyObject;
typedef PyObject* (*PyCFunction)(PyObject*, PyObject*);
typedef struct PyMethodDef {
  const char* ml_name;
  PyCFunction ml_meth;
  int ml_flags;
  const char* ml_doc;
} PyMethodDef;
typedef struct PyModuleDef_Base {
  void* ob_base[2];
  PyObject* (*m_init)(void);
  Py_ssize_t m_index;
  PyObject* m_copy;
} PyModuleDef_Base;
typedef struct PyModuleDef {
  PyModuleDef_Base m_base;
  const char* m_name;
  const char* m_doc;
  Py_ssize_t m_size;
  PyMethodDef* m_methods;
  void* m_slots;
  void* m_traverse;
  void* m_clear;
  void* m_free;
} PyModuleDef;
#define PyModuleDef_HEAD_INIT {}
#define PyMODINIT_FUNC extern "C" PyObject*
#define METH_VARARGS 0x0001
#define METH_NOARGS 0x0004

#endif

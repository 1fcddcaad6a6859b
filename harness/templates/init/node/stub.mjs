
/** `__OP__`: __DOC__
 * @param {Request} req @returns {Promise<object | undefined>} */
async function __FUNCTION__(req) {
  throw notImplemented("__OP__", "__FUNCTION__");
}
